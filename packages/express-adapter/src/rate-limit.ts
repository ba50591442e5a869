import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { RateLimitOptions } from './options.js';
import { DEFAULTS } from './options.js';
import { sendProblem } from './problem-details.js';
import { requestState } from './request-state.js';

const FIFTEEN_MINUTES_MS = 15 * 60 * 1000;

/**
 * The limiters of a router: per 15 minutes, then per second, keyed by the restaurant context the
 * token may act for (or the client address). The 15-minute window's counts go in the
 * `RateLimit-*` headers (IETF draft 6); a 429 carries `Retry-After`.
 */
export function createRateLimiters(options: RateLimitOptions): RequestHandler[] {
  // The 15-minute window runs first, so its RateLimit-* headers are on every response that
  // reaches the limits, including a 429 of the per-second window.
  const windows = [
    {
      name: '15 minutes',
      windowMs: FIFTEEN_MINUTES_MS,
      limit: options.per15Minutes ?? DEFAULTS.per15Minutes,
      headers: 'draft-6',
    },
    {
      name: 'second',
      windowMs: 1000,
      limit: options.perSecond ?? DEFAULTS.perSecond,
      headers: false,
    },
  ] as const;
  return windows.map(({ name, windowMs, limit, headers }) =>
    rateLimit({
      windowMs,
      limit,
      standardHeaders: headers,
      legacyHeaders: false,
      ...(options.store === undefined ? {} : { store: options.store(name) }),
      keyGenerator: (req, res) =>
        requestState(res).rateLimitKey ?? `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`,
      handler: (req, res) => {
        const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
        const seconds = Math.max(
          1,
          Math.ceil(((resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000),
        );
        sendProblem(res, requestState(res).requestId, {
          code: 'RATE_LIMITED',
          detail: `The rate limit of this restaurant context (${limit} per ${name}) is spent; retry in ${seconds} s.`,
          headers: { 'Retry-After': String(seconds) },
        });
      },
    }),
  );
}
