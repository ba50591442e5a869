#!/usr/bin/env node
// Builds pglite-template/: a new, empty PGlite database (PostgreSQL's initdb, run once here) as
// PGlite's own data-directory tarball, and the PGlite version it was made with. openPGlite starts
// a new directory from it (a second or so) rather than running initdb (several seconds); a
// PGlite that cannot start on it makes openPGlite fall back to initdb. Skipped when the template
// of the installed PGlite version is there already.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const entry = require.resolve('@electric-sql/pglite');
let root = dirname(entry);
while (!existsSync(join(root, 'package.json'))) root = dirname(root);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const out = fileURLToPath(new URL('../pglite-template/', import.meta.url));
const info = join(out, 'template.json');
if (existsSync(info) && JSON.parse(readFileSync(info, 'utf8')).pglite === version) process.exit(0);

const { PGlite } = await import('@electric-sql/pglite');
const db = await PGlite.create();
const tarball = await db.dumpDataDir('gzip');
await db.close();
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'pgdata.tar.gz'), Buffer.from(await tarball.arrayBuffer()));
writeFileSync(info, `${JSON.stringify({ pglite: version }, null, 2)}\n`);
console.log(`pglite-template: PGlite ${version}, ${(tarball.size / 2 ** 20).toFixed(1)} MB`);
