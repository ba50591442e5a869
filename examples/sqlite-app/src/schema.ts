import type Database from 'better-sqlite3';

/**
 * The app's own tables, laid out its own way: venues, staff with their jobs and wages, the roster's
 * shifts, and an outbox for the events of each change. None of it is workforce-kit's schema; the
 * store (sqlite-store.ts) maps these rows to the core's records and back.
 *
 * A list the record may lack or hold empty (jobs, wages) has a flag of its own on the parent row
 * (`has_job_list`), since no child rows cannot tell `[]` from absent; so has the shift's clock
 * window, whose fields may all be absent in a present one.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS venues (
  venue_id   TEXT PRIMARY KEY,
  profile    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS staff (
  staff_id       TEXT PRIMARY KEY,
  venue_id       TEXT NOT NULL,
  payroll_ref    TEXT,
  given_name     TEXT,
  preferred_name TEXT,
  family_name    TEXT,
  email          TEXT,
  phone          TEXT,
  phone_country  TEXT,
  pos_pin        TEXT,
  hr_ref         TEXT,
  v2_id          TEXT,
  badge          TEXT,
  has_job_list   INTEGER NOT NULL,
  has_wage_list  INTEGER NOT NULL,
  archived       INTEGER NOT NULL,
  archived_at    TEXT,
  created_at     TEXT NOT NULL,
  modified_at    TEXT NOT NULL,
  row_version    INTEGER NOT NULL,
  UNIQUE (venue_id, payroll_ref)
);
CREATE TABLE IF NOT EXISTS staff_jobs (
  staff_id  TEXT NOT NULL REFERENCES staff (staff_id),
  position  INTEGER NOT NULL,
  job_id    TEXT NOT NULL,
  job_kind  TEXT NOT NULL,
  job_ref   TEXT,
  PRIMARY KEY (staff_id, position)
);
CREATE TABLE IF NOT EXISTS staff_wages (
  staff_id    TEXT NOT NULL REFERENCES staff (staff_id),
  position    INTEGER NOT NULL,
  job_id      TEXT NOT NULL,
  job_kind    TEXT NOT NULL,
  job_ref     TEXT,
  hourly_wage REAL NOT NULL,
  PRIMARY KEY (staff_id, position)
);
CREATE TABLE IF NOT EXISTS roster_shifts (
  shift_id          TEXT PRIMARY KEY,
  venue_id          TEXT NOT NULL,
  scheduler_ref     TEXT,
  job_id            TEXT,
  job_kind          TEXT,
  job_ref           TEXT,
  worker_id         TEXT,
  worker_kind       TEXT,
  worker_ref        TEXT,
  starts_at         TEXT,
  ends_at           TEXT,
  has_clock_window  INTEGER NOT NULL,
  clock_window_id   TEXT,
  early_in_minutes  INTEGER,
  late_in_minutes   INTEGER,
  early_out_minutes INTEGER,
  late_out_minutes  INTEGER,
  removed           INTEGER NOT NULL,
  removed_at        TEXT,
  created_at        TEXT NOT NULL,
  modified_at       TEXT NOT NULL,
  row_version       INTEGER NOT NULL,
  UNIQUE (venue_id, scheduler_ref)
);
CREATE TABLE IF NOT EXISTS outbox (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  venue_id TEXT NOT NULL,
  event    TEXT NOT NULL
);
`;

/**
 * Creates the app's tables where they are missing.
 *
 * @param db - the app's database
 */
export function createSchema(db: Database.Database): void {
  db.exec(SCHEMA);
}
