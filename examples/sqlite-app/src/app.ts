import type { WorkforceStore } from '@workforce-kit/core';
import { createRouter, type RouterOptions } from '@workforce-kit/express-adapter';
import type Database from 'better-sqlite3';
import express from 'express';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The app's database, for its own routes. */
  readonly db: Database.Database;
  /** The store over the same database, for the workforce API. */
  readonly store: WorkforceStore;
  /** The rest of the API's options: its token verifier (`auth`) first. */
  readonly api: Omit<RouterOptions, 'store'>;
}

/**
 * The app: an Express 5 backend with a route of its own, its venue's roster read from its own
 * table, and the workforce API mounted at `/api` over a store of the same database.
 *
 * @param options - the database, the store over it, the API's options
 * @returns the Express app
 */
export function createApp({ db, store, api }: AppOptions): express.Express {
  const roster = db.prepare(
    `SELECT shift_id AS id, worker_id AS worker, starts_at AS starts, ends_at AS ends
     FROM roster_shifts WHERE venue_id = ? AND removed = 0 ORDER BY starts_at`,
  );
  const app = express();
  app.disable('x-powered-by');
  app.get('/venues/:venueId/roster', (req, res) => {
    res.json({ venue: req.params.venueId, shifts: roster.all(req.params.venueId) });
  });
  app.use('/api', createRouter({ ...api, store }));
  return app;
}
