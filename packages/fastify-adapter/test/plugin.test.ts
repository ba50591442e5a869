// The plugin on a plain Fastify() instance, through app.inject (in process, no socket): the
// operations, the problems of the contract and body handling at a glance, and the same answers
// over real HTTP as through inject.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { aWorld } from '@workforce-kit/core/testing';
import { testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { workforceKit } from '../src/index.js';
import { clientHeaders } from './harness.js';

const world = aWorld();
const app = Fastify();
await app.register(workforceKit, testApiOptions(world.seed));
app.get('/host-only', async () => ({ host: true }));
await app.ready();
afterAll(() => app.close());
const token = await tokenFor([world.restaurant.guid]);
const as = (more: Record<string, string> = {}) => clientHeaders(token, world, more);
const restaurantPath = `/restaurants/v1/restaurants/${world.restaurant.guid}`;

/** A request over a connection of its own (no pool that outlives the test), and its answer. */
function httpCall(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject).end();
  });
}

describe('the Fastify plugin', () => {
  it('serves the operations, with the headers of every adapter', async () => {
    const res = await app.inject({ url: restaurantPath, headers: as() });
    expect(res.statusCode).toBe(200);
    expect(res.json().guid).toBe(world.restaurant.guid);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['ratelimit-limit']).toBe('20');
  });

  it('answers the problems of the contract', async () => {
    const noToken = await app.inject({ url: restaurantPath });
    expect([noToken.statusCode, noToken.json().code]).toEqual([401, 'INVALID_TOKEN']);
    const wrongMethod = await app.inject({ method: 'POST', url: restaurantPath });
    expect([wrongMethod.statusCode, wrongMethod.headers.allow]).toEqual([405, 'GET, HEAD']);
    const unknown = await app.inject({ url: '/labor/v1/nothing' });
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'NOT_FOUND']);
    const badQuery = await app.inject({
      url: `${restaurantPath}?includeArchived=maybe&x=1`,
      headers: as(),
    });
    expect(badQuery.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(
      badQuery
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['/query/includeArchived', '/query/x']);
    const host = await app.inject({ url: '/host-only' });
    expect(host.json()).toEqual({ host: true });
    expect(host.headers['x-request-id']).toBeUndefined();
  });

  it('takes an unarchive with no body, a JSON body, a gzip body; refuses others', async () => {
    const path = `/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`;
    const empty = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'application/json' }),
    });
    expect(empty.statusCode).toBe(200);
    const again = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'application/json' }),
      payload: gzipSync('{}'),
    });
    expect(again.statusCode).toBe(400);
    const gzipped = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'application/json', 'content-encoding': 'gzip' }),
      payload: gzipSync('{"a":1}'),
    });
    expect([gzipped.statusCode, gzipped.json().code]).toEqual([400, 'EMPLOYEE_NOT_ARCHIVED']);
    const notJson = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'application/json' }),
      payload: '{',
    });
    expect(notJson.json().code).toBe('MALFORMED_JSON');
    const text = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'text/plain' }),
      payload: 'x',
    });
    expect([text.statusCode, text.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const bomb = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'application/json', 'content-encoding': 'gzip' }),
      payload: gzipSync(Buffer.alloc(1 << 20, 32)),
    });
    expect(bomb.json().code).toBe('PAYLOAD_TOO_LARGE');
    const bogus = await app.inject({
      method: 'PUT',
      url: path,
      headers: as({ 'content-type': 'application/json', 'content-encoding': 'bogus' }),
      payload: '{}',
    });
    expect([bogus.statusCode, bogus.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('answers app.inject and real HTTP alike', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const requests: { method: string; url: string; headers: Record<string, string> }[] = [
      { method: 'GET', url: restaurantPath, headers: as() },
      { method: 'HEAD', url: restaurantPath, headers: as() },
      { method: 'GET', url: restaurantPath, headers: {} },
      { method: 'POST', url: restaurantPath, headers: {} },
      { method: 'GET', url: '/labor/v1/nothing', headers: {} },
      { method: 'GET', url: `${restaurantPath}?includeArchived=maybe`, headers: as() },
      { method: 'DELETE', url: '/labor/v1/shifts/AUTH%3A%E0%A4%A', headers: as() },
      { method: 'GET', url: '/host-only', headers: {} },
    ];
    const compared = [
      'content-type',
      'content-length',
      'allow',
      'www-authenticate',
      'cache-control',
      'x-request-id',
    ];
    for (const [index, { method, url, headers }] of requests.entries()) {
      // The same request id both ways, so that the bodies are equal to the byte.
      const sent = { ...headers, 'x-request-id': `inject-or-http-${index}` };
      const injected = await app.inject({ method: method as 'GET', url, headers: sent });
      const overHttp = await httpCall(port, method, url, sent);
      const label = `${method} ${url}`;
      expect(overHttp.status, label).toBe(injected.statusCode);
      for (const name of compared) {
        expect(overHttp.headers[name], `${label}: ${name}`).toBe(injected.headers[name]);
      }
      expect(overHttp.body, label).toBe(injected.body);
    }
  });

  it('ignores the body of an operation that takes none', async () => {
    const res = await app.inject({
      method: 'DELETE',
      url: `/labor/v1/shifts/${world.shift.guid}`,
      headers: as({ 'content-type': 'text/plain' }),
      payload: 'not json {',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().deleted).toBe(true);
  });
});
