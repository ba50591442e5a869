// openPGlite creates a new database in a child process (its memory goes back to the system), from
// the empty database the package's build makes (or with initdb when that cannot be used), moves it
// into the directory, and starts PGlite with small shared buffers; an interrupted creation is
// started over, and a directory of other files is refused, untouched.

import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { LOCK_FILE_NAME, openPGlite, PGliteOpenError } from '@workforce-kit/postgres';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// The template is made by the package's build; made here too when the build has not run.
const postgresPackage = new URL('../../packages/postgres/', import.meta.url);
beforeAll(() => {
  if (!existsSync(new URL('pglite-template/pgdata.tar.gz', postgresPackage))) {
    execFileSync('pnpm', ['run', 'build'], { cwd: postgresPackage });
  }
}, 120_000);

/** What the test running now made and opened: closed and removed when it ends. */
const made: string[] = [];
const opened: PGlite[] = [];
function newDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'open-pglite-'));
  made.push(dir);
  return join(dir, 'data');
}
afterEach(async () => {
  for (const db of opened.splice(0)) if (!db.closed) await db.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `openPGlite`, the database closed when the test ends if the test did not close it. */
async function open(...args: Parameters<typeof openPGlite>): Promise<PGlite> {
  const db = await openPGlite(...args);
  opened.push(db);
  return db;
}

describe('openPGlite', { timeout: 120_000 }, () => {
  it('creates a database in a new directory that keeps its data across opens, with 16 MB of shared buffers', async () => {
    const dir = newDirectory();
    const first = await open(dir);
    expect((await first.query('show shared_buffers')).rows).toEqual([{ shared_buffers: '16MB' }]);
    await first.exec('create table kept (value text); insert into kept values ($$here$$)');
    await first.close();
    expect(readdirSync(dir).filter((name) => name.startsWith('workforce-kit'))).toEqual([]);
    expect(readFileSync(join(dir, 'PG_VERSION'), 'utf8').trim()).toMatch(/^\d+$/);

    const second = await open(dir, {
      startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'],
    });
    expect((await second.query('select value from kept')).rows).toEqual([{ value: 'here' }]);
    expect((await second.query('show shared_buffers')).rows).toEqual([{ shared_buffers: '8MB' }]);
    await second.close();
  });

  it('creates the database with initdb when the template is not a database PGlite can start on', async () => {
    const dir = newDirectory();
    const template = join(made.at(-1) ?? tmpdir(), 'not-a-database.tar.gz');
    writeFileSync(template, gzipSync(Buffer.from('not a tar archive')));
    const db = await open(dir, {}, { template });
    await db.exec('create table kept (value int); insert into kept values (1)');
    expect((await db.query('select value from kept')).rows).toEqual([{ value: 1 }]);
    await db.close();
    expect(readdirSync(dir)).toContain('PG_VERSION');
  });

  it('starts over a creation that was interrupted (its marker left behind)', async () => {
    const dir = newDirectory();
    mkdirSync(join(dir, 'base'), { recursive: true });
    writeFileSync(join(dir, 'base', 'half-written'), 'x');
    writeFileSync(join(dir, 'workforce-kit.creating'), '');
    const db = await open(dir);
    expect((await db.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await db.close();
    expect(existsSync(join(dir, 'base', 'half-written'))).toBe(false);
    expect(existsSync(join(dir, 'workforce-kit.creating'))).toBe(false);
  });

  it('refuses a directory of other files that holds no database, touching nothing, and unlocks it', async () => {
    const dir = newDirectory();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const opening = openPGlite(dir);
    // Should it open after all, it is closed when the test ends (the expectations below fail).
    void opening.then(
      (db) => opened.push(db),
      () => {},
    );
    await expect(opening).rejects.toBeInstanceOf(PGliteOpenError);
    await expect(opening).rejects.toThrow(/holds files \(notes\.txt\) but no database/);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
  });
});
