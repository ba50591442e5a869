import { request as httpRequest } from 'node:http';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LOGIN_PATH,
  loadConfig,
  type RunningServer,
  startServer,
  WRONG_LOGINS_PER_15_MINUTES,
} from '../src/index.js';
import { FRAMEWORK_SETTINGS } from './support/frameworks.js';

const silent = pino({ level: 'silent' });
const CLIENT = 'harbor-street-integration';
const SECRET = 'demo-secret-harbor-street-7d3f9a';
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';

describe.each(FRAMEWORK_SETTINGS)('on $name', ({ env: framework }) => {
  let server: RunningServer;
  beforeEach(async () => {
    server = await startServer(
      loadConfig({
        ...framework,
        PORT: '0',
        STORE: 'memory',
        AUTH_HS256_SECRET: 'a-test-secret-for-the-dev-login-0123456789',
      })._unsafeUnwrap(),
      silent,
    );
  });
  afterEach(() => server.close());

  interface Answer {
    readonly status: number;
    readonly headers: Record<string, string | string[] | undefined>;
    readonly body: Record<string, unknown>;
  }

  /** A raw HTTP request (fetch would add or normalize headers), its JSON answer. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body = '',
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${server.url}${path}`,
        { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  const json = (body: unknown, headers: Record<string, string> = {}) =>
    send(
      'POST',
      LOGIN_PATH,
      { 'content-type': 'application/json', ...headers },
      typeof body === 'string' ? body : JSON.stringify(body),
    );
  const login = (clientId: string, clientSecret: string) =>
    json({ clientId, clientSecret, userAccessType: 'MACHINE_CLIENT' });

  /** Problem details as the API answers them: its media type, code, status and request id. */
  function expectProblem(answer: Answer, status: number, code: string): void {
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(answer.body).toMatchObject({
      status,
      code,
      requestId: answer.headers['x-request-id'],
      type: `https://workforce-kit.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    });
    expect(answer.body.title).not.toBe(answer.body.detail);
  }

  describe('the development login answers every error as the API does', () => {
    it('logs a client in, with a request id', async () => {
      const ok = await login(CLIENT, SECRET);
      expect(ok.status).toBe(200);
      expect(ok.headers['x-request-id']).toEqual(expect.any(String));
      expect(ok.body).toMatchObject({ status: 'SUCCESS', token: { tokenType: 'Bearer' } });
    });

    it('400 VALIDATION_FAILED for a JSON body that is not a login, naming the fields', async () => {
      const answer = await json({ clientId: 'x' });
      expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(answer.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: '/body/clientSecret' })]),
      );
    });

    it('400 MALFORMED_JSON for a body that is not JSON', async () => {
      expectProblem(await json('{'), 400, 'MALFORMED_JSON');
    });

    it('415 for a request without Content-Type, or of another media type', async () => {
      const body = JSON.stringify({ clientId: CLIENT, clientSecret: SECRET });
      expectProblem(await send('POST', LOGIN_PATH, {}, body), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(
        await send('POST', LOGIN_PATH, { 'content-type': 'text/plain' }, body),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });

    it('415, not 500, for an unknown charset or Content-Encoding', async () => {
      const body = JSON.stringify({ clientId: CLIENT, clientSecret: SECRET });
      expectProblem(
        await json(body, { 'content-type': 'application/json; charset=latin1' }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectProblem(
        await json(body, { 'content-encoding': 'bogus' }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });

    it('400 with OAuth error members for a form without grant_type (curl -d sends one)', async () => {
      const answer = await send(
        'POST',
        LOGIN_PATH,
        { 'content-type': 'application/x-www-form-urlencoded' },
        JSON.stringify({ clientId: CLIENT }),
      );
      expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(answer.body.error).toBe('unsupported_grant_type');
      expect(answer.body.detail).toMatch(/Content-Type: application\/json/);
    });

    it('400, not 500, for Basic credentials with bad percent-encoding', async () => {
      const basic = Buffer.from(`${CLIENT}:%E0%A4%A`).toString('base64');
      const answer = await send(
        'POST',
        LOGIN_PATH,
        { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
        'grant_type=client_credentials',
      );
      expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(answer.body.error).toBe('invalid_request');
    });

    it('401 INVALID_CLIENT for a wrong secret, with OAuth members on the form', async () => {
      expectProblem(await login(CLIENT, 'wrong'), 401, 'INVALID_CLIENT');
      const form = await send(
        'POST',
        LOGIN_PATH,
        { 'content-type': 'application/x-www-form-urlencoded' },
        `grant_type=client_credentials&client_id=${CLIENT}&client_secret=wrong`,
      );
      expectProblem(form, 401, 'INVALID_CLIENT');
      expect(form.body.error).toBe('invalid_client');
      expect(form.headers['www-authenticate']).toMatch(/^Basic /);
    });

    it('405 with Allow for another method', async () => {
      const answer = await send('GET', LOGIN_PATH, {});
      expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
      expect(answer.headers.allow).toBe('POST');
    });
  });

  describe('wrong logins are throttled', () => {
    it(`per client id: after ${WRONG_LOGINS_PER_15_MINUTES.perClient}, even the right secret waits`, async () => {
      for (let i = 0; i < WRONG_LOGINS_PER_15_MINUTES.perClient; i += 1) {
        expectProblem(await login(CLIENT, `wrong-${i}`), 401, 'INVALID_CLIENT');
      }
      const refused = await login(CLIENT, SECRET);
      expectProblem(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
      // Another client is not locked out by them.
      expect((await login('platform-admin', 'demo-secret-platform-admin-91b0e5')).status).toBe(200);
    });

    it(`per address: after ${WRONG_LOGINS_PER_15_MINUTES.perAddress} wrong logins of any client ids`, async () => {
      for (let i = 0; i < WRONG_LOGINS_PER_15_MINUTES.perAddress; i += 1) {
        expectProblem(await login(`nobody-${i}`, 'wrong'), 401, 'INVALID_CLIENT');
      }
      expectProblem(
        await login('platform-admin', 'demo-secret-platform-admin-91b0e5'),
        429,
        'RATE_LIMITED',
      );
    });
  });

  describe('paths outside the API', () => {
    it('answer with an X-Request-Id, reusing a sane incoming one', async () => {
      const health = await send('GET', '/healthz', { 'x-request-id': 'probe-7' });
      expect(health.status).toBe(200);
      expect(health.headers['x-request-id']).toBe('probe-7');
      const docs = await send('GET', '/openapi.json', {});
      expect(docs.headers['x-request-id']).toEqual(expect.any(String));
      expectProblem(await send('GET', '/nothing-here', {}), 404, 'NOT_FOUND');
    });
  });

  describe('a token from before a restart', () => {
    it('is refused, saying the secret was made at start, when AUTH_HS256_SECRET is not set', async () => {
      const startWithoutSecret = () =>
        startServer(
          loadConfig({ ...framework, PORT: '0', STORE: 'memory' })._unsafeUnwrap(),
          silent,
        );
      const before = await startWithoutSecret();
      let token: string;
      try {
        const res = await fetch(`${before.url}${LOGIN_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            clientId: CLIENT,
            clientSecret: SECRET,
            userAccessType: 'MACHINE_CLIENT',
          }),
        });
        token = ((await res.json()) as { token: { accessToken: string } }).token.accessToken;
      } finally {
        await before.close();
      }
      const after = await startWithoutSecret();
      try {
        const res = await fetch(`${after.url}/restaurants/v1/restaurants/${HARBOR}`, {
          headers: { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': HARBOR },
        });
        expect(res.status).toBe(401);
        const body = (await res.json()) as { detail: string };
        expect(body.detail).toMatch(/signature does not verify: .*signing secret when it started/);
        expect(body.detail).toMatch(/AUTH_HS256_SECRET/);
      } finally {
        await after.close();
      }
    });
  });
});
