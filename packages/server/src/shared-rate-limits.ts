import type { RateLimitWindow, WindowCounter } from '@workforce-kit/http';
import { createPostgresRateLimits } from '@workforce-kit/postgres';
import type pg from 'pg';

/**
 * Rate-limit windows shared by every process of a deployment through the PostgreSQL server's
 * `workforce_kit_rate_limits` table (`createPostgresRateLimits` of `@workforce-kit/postgres`):
 * each process claims points of a restaurant's window from the database and admits requests from
 * those it holds, so that four processes admit the limit once between them, not four times, and a
 * request is decided without a statement of its own. The router is made before the store opens
 * (the port is bound first), so the claims go to the pool given by `open`; until then the server
 * answers 503 to every API request and counts nothing. A database that fails a claim lets the
 * request through (logged by the router), as the API's answer then is the store's 503 anyway.
 *
 * @param maxKeys - keys (restaurant contexts, client addresses) each window holds leases of
 */
export function sharedRateLimits(maxKeys: number): {
  readonly limiter: (window: RateLimitWindow) => WindowCounter;
  open(pool: pg.Pool): void;
  close(): void;
} {
  let pool: pg.Pool | undefined;
  const limits = createPostgresRateLimits({
    client: {
      query(statement: string | pg.QueryConfig, values?: unknown[]) {
        if (pool === undefined) return Promise.reject(new Error('the database is not open yet'));
        return typeof statement === 'string'
          ? pool.query(statement, values)
          : pool.query(statement);
      },
    },
    namedStatements: true,
    maxKeys,
  });
  return {
    limiter: (window) => limits.limiter(window),
    open(opened) {
      pool = opened;
    },
    close: () => limits.close(),
  };
}
