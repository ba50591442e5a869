import type { RequestHandler, Response } from 'express';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DEFAULTS, type RateLimitOptions, type RateLimitWindow } from './options.js';
import { writeProblem } from './problem-details.js';
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
 * client address): per second, then per 15 minutes. Each window is one counter of
 * rate-limiter-flexible (in memory by default; any of its stores can share counts between
 * processes). A request refused by the per-second window spends nothing of the 15-minute window,
 * so that a burst of refused requests cannot lock a restaurant out for 15 minutes.
 *
 * The `RateLimit-*` headers (IETF draft 6) describe the window closest to running out (the fewest
 * requests left), and on a 429 the window that refused, whose `Retry-After` is also sent. A
 * limiter that fails (its store is down) lets the request through and logs why.
 */
export function createRateLimiter(options: RateLimitOptions): RequestHandler {
  const makeLimiter = options.limiter ?? memoryLimiter;
  const short: RateLimitWindow = {
    name: 'second',
    points: options.perSecond ?? DEFAULTS.perSecond,
    durationSeconds: 1,
  };
  const long: RateLimitWindow = {
    name: '15 minutes',
    points: options.per15Minutes ?? DEFAULTS.per15Minutes,
    durationSeconds: 15 * 60,
  };
  const windows = [
    { window: short, limiter: makeLimiter(short) },
    { window: long, limiter: makeLimiter(long) },
  ] as const;

  const describe = (res: Response, window: RateLimitWindow, outcome: RateLimiterRes) => {
    res.setHeader('RateLimit-Limit', window.points);
    res.setHeader('RateLimit-Remaining', outcome.remainingPoints);
    res.setHeader('RateLimit-Reset', seconds(outcome.msBeforeNext));
  };

  return async (req, res, next) => {
    const state = requestState(res);
    const key = state.rateLimitKey ?? `ip:${req.socket.remoteAddress ?? 'unknown'}`;
    let tightest: { window: RateLimitWindow; outcome: RateLimiterRes } | undefined;
    for (const { window, limiter } of windows) {
      let outcome: RateLimiterRes;
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
        describe(res, window, rejection);
        const retry = seconds(rejection.msBeforeNext);
        writeProblem(res, state.requestId, {
          code: 'RATE_LIMITED',
          detail: `The rate limit of this restaurant context (${window.points} per ${window.name}) is spent; retry in ${retry} s.`,
          headers: { 'Retry-After': String(retry) },
        });
        return;
      }
      if (tightest === undefined || outcome.remainingPoints < tightest.outcome.remainingPoints) {
        tightest = { window, outcome };
      }
    }
    if (tightest !== undefined) describe(res, tightest.window, tightest.outcome);
    next();
  };
}
