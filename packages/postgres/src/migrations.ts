import { readdir, readFile } from 'node:fs/promises';
import type { SqlClient } from './sql-client.js';

/** The advisory lock key of migrations and seeding (any constant shared by all processes). */
export const ADVISORY_LOCK_KEY = 7438291001n;

/** A migration file: `NNN_name.sql`, applied in version order, once. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const migrationsDir = new URL('../migrations/', import.meta.url);

/** The migrations shipped with the package, in version order. */
export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(migrationsDir))
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort();
  return Promise.all(
    files.map(async (file) => ({
      version: Number(file.slice(0, 3)),
      name: file.replace(/\.sql$/, ''),
      sql: await readFile(new URL(file, migrationsDir), 'utf8'),
    })),
  );
}

const TAG = '$workforce_kit_migrate$';

/**
 * One statement that applies the migrations not applied yet: a `DO` block that first takes a
 * transaction-scoped advisory lock, so that processes starting together apply each migration
 * once, in order; the `workforce_kit_migrations` table records what was applied. One statement
 * works the same through pg and PGlite, and is atomic.
 */
export function migrationStatement(migrations: readonly Migration[]): string {
  for (const migration of migrations) {
    if (migration.sql.includes(TAG)) throw new Error(`${migration.name} may not contain ${TAG}`);
  }
  const steps = migrations.map(
    (migration) => `
  IF NOT EXISTS (SELECT 1 FROM workforce_kit_migrations WHERE version = ${migration.version}) THEN
${migration.sql}
    INSERT INTO workforce_kit_migrations (version, name) VALUES (${migration.version}, '${migration.name}');
  END IF;`,
  );
  return `DO ${TAG}
BEGIN
  PERFORM pg_advisory_xact_lock(${ADVISORY_LOCK_KEY});
  CREATE TABLE IF NOT EXISTS workforce_kit_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  );${steps.join('')}
END
${TAG};`;
}

/**
 * Applies the package's migrations that the database does not have yet. A database that has them
 * all (every start but the first) is told so by one small query: the statement that applies them
 * holds the text of every migration, and PostgreSQL would parse it all to do nothing.
 */
export async function migrate(client: SqlClient): Promise<void> {
  const migrations = await loadMigrations();
  // A new database has no such table yet: the query fails, and every migration is to be applied.
  const { rows } = await client
    .query('SELECT array_agg(version) AS applied FROM workforce_kit_migrations')
    .catch(() => ({ rows: [] }));
  const applied = new Set((rows[0] as { applied?: number[] } | undefined)?.applied ?? []);
  if (migrations.every((migration) => applied.has(migration.version))) return;
  await client.query(migrationStatement(migrations));
}
