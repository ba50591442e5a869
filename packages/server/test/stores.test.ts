import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStore, loadConfig, type RunningServer, startServer } from '../src/index.js';

const silent = pino({ level: 'silent' });
const SECRET = 'a-test-secret-for-the-stores-0123456789ab';
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';

function start(env: Record<string, string>): Promise<RunningServer> {
  return startServer(
    loadConfig({ PORT: '0', AUTH_HS256_SECRET: SECRET, ...env })._unsafeUnwrap(),
    silent,
  );
}

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      clientId: 'harbor-street-integration',
      clientSecret: 'demo-secret-harbor-street-7d3f9a',
      userAccessType: 'MACHINE_CLIENT',
    }),
  });
  return ((await res.json()) as { token: { accessToken: string } }).token.accessToken;
}

async function unarchiveMaria(url: string): Promise<number> {
  const res = await fetch(`${url}/labor/v1/employees/${MARIA}/unarchive`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${await token(url)}`,
      'platform-restaurant-external-id': HARBOR,
      'content-type': 'application/json',
    },
  });
  return res.status;
}

describe('STORE=pglite (the default)', () => {
  it('keeps its data in PGLITE_DIR across restarts, and seeds only an empty database', async () => {
    const dir = join(tmpdir(), `workforce-kit-server-${randomUUID()}`);
    const first = await start({ PGLITE_DIR: dir });
    expect(describeStore(loadConfig({ PGLITE_DIR: dir })._unsafeUnwrap().store)).toBe(
      `pglite (${dir})`,
    );
    expect(await unarchiveMaria(first.url)).toBe(200);
    await first.close();

    const second = await start({ PGLITE_DIR: dir });
    try {
      expect(await unarchiveMaria(second.url)).toBe(400);
      expect(await (await fetch(`${second.url}/readyz`)).json()).toEqual({ status: 'ready' });
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('STORE=postgres', () => {
  let database: PostgresServer;
  beforeAll(async () => {
    database = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await database.destroy();
  });

  it('lets two servers share one database, and /readyz follows it', async () => {
    const env = { STORE: 'postgres', DATABASE_URL: database.url };
    const [one, two] = await Promise.all([start(env), start(env)]);
    try {
      expect(await unarchiveMaria(one.url)).toBe(200);
      expect(await unarchiveMaria(two.url)).toBe(400);

      await database.stop();
      const down = await fetch(`${one.url}/readyz`);
      expect(down.status).toBe(503);
      expect(((await down.json()) as { code: string }).code).toBe('STORAGE_UNAVAILABLE');
      await database.start();
      let ready = await fetch(`${two.url}/readyz`);
      for (let i = 0; i < 20 && ready.status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        ready = await fetch(`${two.url}/readyz`);
      }
      expect(ready.status).toBe(200);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  }, 60_000);

  it('refuses to start, naming the store, when the database cannot be reached', async () => {
    await expect(
      start({ STORE: 'postgres', DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/none' }),
    ).rejects.toThrow(/postgres \(postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/none\) cannot be used/);
  });
});
