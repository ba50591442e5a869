import type { RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DEFAULTS, type RateLimitOptions, type RateLimitWindow } from './options.js';
import { writeProblem } from './problem-details.js';
import { requestState } from './request-state.js';

/** What the router asks of a window's limiter: count a request of a key. */
export interface WindowCounter {
  /** Resolves while the key has points left; rejects with a `RateLimiterRes` when spent. */
  consume(key: string): Promise<RateLimiterRes>;
}

/**
 * The default limiter of a window: counts in this process's memory, for at most `maxKeys` keys.
 * rate-limiter-flexible keeps a key until its window ends (15 minutes for the long one), so
 * requests naming ever new restaurant contexts would grow memory without bound; here the least
 * recently counted key is dropped (and its count with it) once `maxKeys` are held.
 */
export function boundedMemoryCounter(
  window: RateLimitWindow,
  maxKeys: number,
): WindowCounter & { readonly size: number } {
  const limiter = new RateLimiterMemory({
    keyPrefix: window.name,
    points: window.points,
    duration: window.durationSeconds,
  });
  const keys = new LRUCache<string, true>({
    max: maxKeys,
    dispose: (_held, key, reason) => {
      if (reason === 'evict') void limiter.delete(key);
    },
  });
  return {
    consume(key) {
      keys.set(key, true);
      return limiter.consume(key);
    },
    get size() {
      return keys.size;
    },
  };
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
  const maxKeys = options.maxKeys ?? DEFAULTS.rateLimitMaxKeys;
  const makeLimiter: (window: RateLimitWindow) => WindowCounter =
    options.limiter ?? ((window) => boundedMemoryCounter(window, maxKeys));
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
