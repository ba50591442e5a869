import type { RateLimitWindow, WindowCounter } from '@workforce-kit/http';
import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';

/** The table of migration 005 (`@workforce-kit/postgres`), which every process counts in. */
const TABLE = 'workforce_kit_rate_limits';

/**
 * Rate-limit windows counted in the PostgreSQL server's `workforce_kit_rate_limits` table by
 * rate-limiter-flexible's `RateLimiterPostgres`, so that every process of a deployment shares one
 * count per restaurant context: four processes admit the limit once between them, not four times.
 * The router is made before the store opens (the port is bound first), so the counters start
 * without a pool and are given it by `open`; until then the server answers 503 to every API
 * request and counts nothing. A database that fails a count lets the request through (logged by
 * the router), as the API's answer then is the store's 503 anyway.
 */
export function sharedRateLimits(): {
  readonly limiter: (window: RateLimitWindow) => WindowCounter;
  open(pool: pg.Pool): void;
} {
  let pool: pg.Pool | undefined;
  return {
    open(opened) {
      pool = opened;
    },
    limiter(window) {
      let counter: RateLimiterPostgres | undefined;
      return {
        consume(key) {
          if (pool === undefined) return Promise.reject(new Error('the database is not open yet'));
          counter ??= new RateLimiterPostgres({
            storeClient: pool,
            storeType: 'pool',
            tableName: TABLE,
            tableCreated: true,
            keyPrefix: window.name,
            points: window.points,
            duration: window.durationSeconds,
          });
          return counter.consume(key);
        },
      };
    },
  };
}
