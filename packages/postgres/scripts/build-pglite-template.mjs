#!/usr/bin/env node
// Builds pglite-template/: a new PGlite database (PostgreSQL's initdb, run once here) with the
// package's migrations applied, as PGlite's own data-directory tarball, and the PGlite version and
// migrations it was made with. openPGlite starts
// a new directory from it (a second or so) rather than running initdb (several seconds); a
// PGlite that cannot start on it makes openPGlite fall back to initdb. Skipped when the template
// of the installed PGlite version and these migrations is there already. Runs after tsc (it
// applies the migrations with dist/migrations.js); a template that misses a later migration is
// still right, as the store applies what a database lacks.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const entry = require.resolve('@electric-sql/pglite');
let root = dirname(entry);
while (!existsSync(join(root, 'package.json'))) root = dirname(root);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// Each migration by name and content: a migration edited in place (in development) makes a new
// template, as a new one does.
const migrationsDir = new URL('../migrations/', import.meta.url);
const migrations = readdirSync(migrationsDir)
  .sort()
  .map((name) => ({
    name,
    sha256: createHash('sha256')
      .update(readFileSync(new URL(name, migrationsDir)))
      .digest('hex'),
  }));
const out = fileURLToPath(new URL('../pglite-template/', import.meta.url));
const info = join(out, 'template.json');
const made = { pglite: version, migrations };
if (existsSync(info) && readFileSync(info, 'utf8') === `${JSON.stringify(made, null, 2)}\n`) {
  process.exit(0);
}

const { PGlite } = await import('@electric-sql/pglite');
const { migrate } = await import('../dist/migrations.js');
const db = await PGlite.create();
await migrate(db);
const tarball = await db.dumpDataDir('gzip');
await db.close();
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'pgdata.tar.gz'), Buffer.from(await tarball.arrayBuffer()));
writeFileSync(info, `${JSON.stringify(made, null, 2)}\n`);
console.log(`pglite-template: PGlite ${version}, ${(tarball.size / 2 ** 20).toFixed(1)} MB`);
