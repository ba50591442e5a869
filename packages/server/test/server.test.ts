import { execFile } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFile, writeFile } from 'node:fs/promises';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createJwtVerifier } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { parse } from 'yaml';
import {
  curlSession,
  DEMO_SEED_FILE,
  loadConfig,
  type RunningServer,
  StartupError,
  servedDocument,
  startServer,
} from '../src/index.js';
import { FRAMEWORK_SETTINGS } from './support/frameworks.js';

const silent = pino({ level: 'silent' });
const SECRET = 'a-test-secret-for-the-dev-login-0123456789';
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';

function start(env: Record<string, string> = {}): Promise<RunningServer> {
  return startServer(
    loadConfig({ PORT: '0', STORE: 'memory', AUTH_HS256_SECRET: SECRET, ...env })._unsafeUnwrap(),
    silent,
  );
}

async function login(
  url: string,
  clientId = 'harbor-street-integration',
  clientSecret = 'demo-secret-harbor-street-7d3f9a',
) {
  return fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, clientSecret, userAccessType: 'MACHINE_CLIENT' }),
  });
}

describe.each(FRAMEWORK_SETTINGS)('on $name', ({ env: framework }) => {
  describe('the reference server', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await start(framework);
    });
    afterAll(async () => {
      await server.close();
    });

    it('answers /healthz and /readyz', async () => {
      expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready' });
    });

    it('logs a seed client in, in the platform style, with a token the API accepts', async () => {
      const res = await login(server.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as { token: { accessToken: string } };
      expect(body).toMatchObject({
        status: 'SUCCESS',
        token: {
          tokenType: 'Bearer',
          expiresIn: 3600,
          scope: 'labor.employees:write labor.shifts:write restaurants:read',
        },
      });
      const principal = await createJwtVerifier({
        hs256Secret: SECRET,
        issuer: 'workforce-kit-dev',
      }).verify(body.token.accessToken);
      expect(principal._unsafeUnwrap().restaurants).toEqual(
        new Set([HARBOR, 'e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8']),
      );

      const restaurant = await fetch(`${server.url}/restaurants/v1/restaurants/${HARBOR}`, {
        headers: {
          authorization: `Bearer ${body.token.accessToken}`,
          'platform-restaurant-external-id': HARBOR,
        },
      });
      expect(restaurant.status).toBe(200);
      expect(((await restaurant.json()) as { general: { name: string } }).general.name).toBe(
        'Harbor Street Kitchen',
      );
    });

    it('refuses a wrong secret, an unknown client and a malformed login', async () => {
      expect((await login(server.url, 'harbor-street-integration', 'wrong')).status).toBe(401);
      expect((await login(server.url, 'nobody', 'demo-secret-harbor-street-7d3f9a')).status).toBe(
        401,
      );
      for (const body of ['{"clientId":"x"}', '{', '[]']) {
        const res = await fetch(`${server.url}/authentication/v1/authentication/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect((await fetch(`${server.url}/authentication/v1/authentication/login`)).status).toBe(
        405,
      );
    });

    it('takes the OAuth 2.0 client-credentials form too (for the reference page)', async () => {
      const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(`${server.url}/authentication/v1/authentication/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(fields),
        });
      const ok = await form({
        grant_type: 'client_credentials',
        client_id: 'platform-admin',
        client_secret: 'demo-secret-platform-admin-91b0e5',
      });
      expect(await ok.json()).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        access_token: expect.any(String),
      });
      const basic = Buffer.from('noodle-bar-readonly:demo-secret-noodle-bar-2c8e41').toString(
        'base64',
      );
      const viaBasic = await form(
        { grant_type: 'client_credentials' },
        { authorization: `Basic ${basic}` },
      );
      expect(((await viaBasic.json()) as { scope: string }).scope).toBe('restaurants:read');
      expect((await form({ grant_type: 'password' })).status).toBe(400);
      expect(
        (
          await form({
            grant_type: 'client_credentials',
            client_id: 'platform-admin',
            client_secret: 'x',
          })
        ).status,
      ).toBe(401);
    });

    it('serves the API reference page, its assets, and the spec naming this server', async () => {
      const page = await fetch(`${server.url}/docs`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      for (const asset of html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)) {
        const res = await fetch(`${server.url}${asset[1]}`);
        expect(res.status, asset[1]).toBe(200);
      }
      const yaml = parse(await (await fetch(`${server.url}/openapi.yaml`)).text());
      expect(yaml).toEqual(servedDocument(server.url));
      expect(yaml.servers).toEqual([{ url: server.url, description: 'This server.' }]);
      expect(yaml.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
        `${server.url}/authentication/v1/authentication/login`,
      );
      expect(await (await fetch(`${server.url}/openapi.json`)).json()).toEqual(yaml);
    });

    it('answers anything else with a 404 problem', async () => {
      const res = await fetch(`${server.url}/nothing-here`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    });

    it('runs the printed curl session as printed', async () => {
      const fresh = await start(framework);
      try {
        const session = curlSession(fresh.url, fresh.seed, { seedFile: DEMO_SEED_FILE });
        const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', session]);
        const answers = stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(answers.map((a) => a.guid)).toEqual([
          HARBOR,
          MARIA,
          MARIA,
          '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
          '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
        ]);
        expect(answers[1]).toMatchObject({ deleted: false });
        expect(answers[2]).toMatchObject({ deleted: true });
        expect(answers[3]).toMatchObject({ deleted: true });
        expect(answers[4]).toEqual(answers[3]);
      } finally {
        await fresh.close();
      }
    });
  });
});
describe('starting', () => {
  it('refuses a seed file that does not match, naming the bad entry, and loads nothing', async () => {
    const path = join(tmpdir(), `workforce-kit-bad-seed-${process.pid}.json`);
    await writeFile(
      path,
      JSON.stringify({ restaurants: [{ guid: 'nope', general: { name: 'x' } }] }),
    );
    const attempt = start({ SEED_FILE: path });
    await expect(attempt).rejects.toBeInstanceOf(StartupError);
    await expect(attempt).rejects.toThrow(
      /restaurants\[0\] \(nope\) guid: must be a platform GUID/,
    );
  });

  it('refuses a seed file that is missing or not JSON', async () => {
    const path = join(tmpdir(), `workforce-kit-not-json-${process.pid}.json`);
    await writeFile(path, '{ nope');
    await expect(start({ SEED_FILE: path })).rejects.toThrow(/SEED_FILE .* is not JSON/);
    await expect(start({ SEED_FILE: '/no/such/seed.json' })).rejects.toThrow(
      /SEED_FILE \/no\/such\/seed.json cannot be read/,
    );
  });

  it('refuses an unreadable public key file', async () => {
    const config = loadConfig({
      PORT: '0',
      AUTH_MODE: 'jwt',
      AUTH_PUBLIC_KEY_FILE: '/no/such/key.pem',
      AUTH_ALLOW_ANY_ISSUER_OR_AUDIENCE: 'true',
    });
    await expect(startServer(config._unsafeUnwrap(), silent)).rejects.toThrow(
      /AUTH_PUBLIC_KEY_FILE \/no\/such\/key.pem cannot be read/,
    );
  });
});

describe.each(FRAMEWORK_SETTINGS)('on $name', ({ env: framework }) => {
  it('answers /healthz and /metrics while the store opens, and everything else 503 with Retry-After', async () => {
    // A "database" that takes connections and never answers: the store does not open until the
    // pool gives up (2 s), and then the start fails.
    const sockets = new Set<Socket>();
    const silentDatabase = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silentDatabase.listen(0, '127.0.0.1', resolve));
    const dbPort = (silentDatabase.address() as AddressInfo).port;
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const attempt = start({
      ...framework,
      PORT: String(port),
      STORE: 'postgres',
      DATABASE_URL: `postgres://nobody@127.0.0.1:${dbPort}/none`,
    });
    const failed = attempt.then(
      () => 'started',
      (error: unknown) => error,
    );
    try {
      // Asked until it answers, as long as the start is under way.
      let health: Response | undefined;
      while (health === undefined && (await Promise.race([failed, 'pending'])) === 'pending') {
        health = await fetch(`${url}/healthz`).catch(() => undefined);
        if (health === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(health?.status).toBe(200);
      // A scrape during the start sees the process.
      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
      const ready = await fetch(`${url}/readyz`);
      const api = await fetch(`${url}/restaurants/v1/restaurants/${HARBOR}`);
      // Answered while the start is still under way, not after it.
      expect(await Promise.race([failed, 'pending'])).toBe('pending');
      for (const answer of [ready, api]) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(await answer.json()).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      }
      expect(await failed).toBeInstanceOf(StartupError);
    } finally {
      await failed;
      for (const socket of sockets) socket.destroy();
      silentDatabase.close();
    }
  }, 20_000);

  describe('shutting down', () => {
    it('stops accepting connections and finishes the request in flight', async () => {
      const server = await start(framework);
      onTestFinished(() => server.close({ force: true }).catch(() => {}));
      const { port } = new URL(server.url);
      // A request whose headers are half sent is in flight: the server must wait for it. It is
      // in flight once the server (in this process) has read them from its end of the socket.
      const accepted: Socket[] = [];
      const onAccepted = (message: unknown) =>
        accepted.push((message as { socket: Socket }).socket);
      subscribe('net.server.socket', onAccepted);
      onTestFinished(() => {
        unsubscribe('net.server.socket', onAccepted);
      });
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const halfSent = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n';
      socket.write(halfSent);
      await vi.waitFor(
        () =>
          expect(accepted.find((end) => end.remotePort === socket.localPort)?.bytesRead).toBe(
            halfSent.length,
          ),
        { timeout: 10_000, interval: 5 },
      );
      const closed = server.close();
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      const response = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
        });
        socket.on('close', () => resolve(text));
      });
      socket.write('Connection: close\r\n\r\n');
      expect(await response).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*"status":"ok"/);
      await closed;
      expect((await server.store.ping()).isErr()).toBe(true);
    });
  });
});
describe('the README', () => {
  it('prints the curl session the server prints for the demo seed on the default port', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    const block =
      /<!-- curl-session:start -->\n```sh\n([\s\S]*?)\n```\n<!-- curl-session:end -->/.exec(
        readme,
      )?.[1];
    const seed = parseSeed(
      JSON.parse(await readFile(DEMO_SEED_FILE, 'utf8')),
      new Date(),
    )._unsafeUnwrap();
    expect(block).toBe(
      curlSession('http://127.0.0.1:8080', seed, {
        seedFile: 'packages/server/seed/demo-seed.json',
      }),
    );
  });
});
