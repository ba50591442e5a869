import type { RequestHandler, Response } from 'express';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DEFAULTS, type RateLimitOptions, type RateLimitWindow } from './options.js';
import { sendProblem } from './problem-details.js';
import { requestState } from './request-state.js';

/** The default limiter of a window: counts in this process's memory. */
function memoryLimiter(window: RateLimitWindow): RateLimiterAbstract {
  return new RateLimiterMemory({
    keyPrefix: window.name,
    points: window.points,
    duration: window.durationSeconds,
  });
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The rate limits of a router, keyed by the restaurant context the token may act for (or the
 * client address): per 15 minutes, then per second. Each window is one counter of
 * rate-limiter-flexible (in memory by default; any of its stores can share counts between
 * processes). The 15-minute window's counts go in the `RateLimit-*` headers (IETF draft 6) of
 * every response that reaches the limits; a refused request gets 429 with `Retry-After`. A
 * limiter that fails (its store is down) lets the request through and logs why.
 */
export function createRateLimiter(options: RateLimitOptions): RequestHandler {
  const makeLimiter = options.limiter ?? memoryLimiter;
  const long: RateLimitWindow = {
    name: '15 minutes',
    points: options.per15Minutes ?? DEFAULTS.per15Minutes,
    durationSeconds: 15 * 60,
  };
  const short: RateLimitWindow = {
    name: 'second',
    points: options.perSecond ?? DEFAULTS.perSecond,
    durationSeconds: 1,
  };
  const windows = [
    { window: long, limiter: makeLimiter(long), headers: true },
    { window: short, limiter: makeLimiter(short), headers: false },
  ] as const;

  const refuse = (res: Response, window: RateLimitWindow, refusal: RateLimiterRes) => {
    const retry = seconds(refusal.msBeforeNext);
    sendProblem(res, requestState(res).requestId, {
      code: 'RATE_LIMITED',
      detail: `The rate limit of this restaurant context (${window.points} per ${window.name}) is spent; retry in ${retry} s.`,
      headers: { 'Retry-After': String(retry) },
    });
  };

  return async (req, res, next) => {
    const state = requestState(res);
    const key = state.rateLimitKey ?? `ip:${req.socket.remoteAddress ?? 'unknown'}`;
    for (const { window, limiter, headers } of windows) {
      let outcome: RateLimiterRes;
      let refused = false;
      try {
        outcome = await limiter.consume(key);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) {
          state.log.warn(
            { err: rejection, window: window.name },
            'rate limiter unavailable; request let through',
          );
          continue;
        }
        outcome = rejection;
        refused = true;
      }
      if (headers) {
        res.setHeader('RateLimit-Limit', window.points);
        res.setHeader('RateLimit-Remaining', outcome.remainingPoints);
        res.setHeader('RateLimit-Reset', seconds(outcome.msBeforeNext));
      }
      if (refused) {
        refuse(res, window, outcome);
        return;
      }
    }
    next();
  };
}
