// createFetchHandler in process, as a user's test calls it: a web Request in, a Response (or
// undefined) out, with no server. What is the adapter's own: the path of an absolute URL and its
// base path, paths outside the API, a body read from a web stream (with no Content-Length, as a
// Request made in process has), HEAD, the client's address from the host. What the API answers
// over real HTTP is the same through every adapter and is tested once for all of them, in
// test/http of the repository (the fetch handler there on Hono's @hono/node-server), and on Bun
// and Deno in test/runtimes.
import { gzipSync } from 'node:zlib';
import { aWorld } from '@workforce-kit/core/testing';
import { RESTAURANT_HEADER, testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import { describe, expect, it } from 'vitest';
import { createFetchHandler, type Logger } from '../src/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ORIGIN = 'http://localhost';

const world = aWorld();
const token = await tokenFor([world.restaurant.guid]);
const client = { authorization: `Bearer ${token}`, [RESTAURANT_HEADER]: world.restaurant.guid };
const restaurantPath = `/restaurants/v1/restaurants/${world.restaurant.guid}`;
const unarchivePath = `/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`;

/** The answer of a request the API takes. */
function answered(response: Response | undefined): Response {
  if (response === undefined) throw new Error('the API did not take the request');
  return response;
}

/** The status, the problem+json media type, the code, and the request id in body and header. */
async function expectProblem(
  response: Response | undefined,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const res = answered(response);
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(body).toMatchObject({ status, code, requestId: res.headers.get('x-request-id') });
  return body;
}

/** A PUT of an unarchive with `body` and these headers besides the client's and JSON's. */
function unarchive(body: RequestInit['body'], headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${unarchivePath}`, {
    method: 'PUT',
    headers: { ...client, 'content-type': 'application/json', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

describe('a request in process', () => {
  it('answers a GET of the API with the headers of every adapter', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed));
    const res = answered(
      await handler(new Request(`${ORIGIN}${restaurantPath}`, { headers: client })),
    );
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ guid: world.restaurant.guid });
    expect(Object.fromEntries(res.headers)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': expect.stringMatching(UUID),
      'ratelimit-limit': '20',
      'ratelimit-remaining': '19',
      'ratelimit-reset': expect.stringMatching(/^\d+$/),
    });
  });

  it('resolves undefined for a path outside the API, and answers its own 404 and 405', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed));
    expect(await handler(new Request(`${ORIGIN}/elsewhere/page?x=1`))).toBeUndefined();
    expect(await handler(new Request(`${ORIGIN}/`))).toBeUndefined();
    const unknown = await expectProblem(
      await handler(new Request(`${ORIGIN}/labor/v1/nope?x=1`)),
      404,
      'NOT_FOUND',
    );
    expect(unknown.instance).toBe('/labor/v1/nope');
    const post = answered(
      await handler(new Request(`${ORIGIN}${restaurantPath}`, { method: 'POST' })),
    );
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await expectProblem(post, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers HEAD with the length of the GET body and no body', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed, { rateLimit: false }));
    const get = answered(
      await handler(new Request(`${ORIGIN}${restaurantPath}`, { headers: client })),
    );
    const head = answered(
      await handler(new Request(`${ORIGIN}${restaurantPath}`, { method: 'HEAD', headers: client })),
    );
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(Number(head.headers.get('content-length'))).toBe((await get.text()).length);
  });

  it('serves under a base path, and nothing outside it', async () => {
    const handler = createFetchHandler({ ...testApiOptions(world.seed), basePath: '/api/' });
    const ok = answered(
      await handler(new Request(`${ORIGIN}/api${restaurantPath}`, { headers: client })),
    );
    expect(ok.status).toBe(200);
    const problem = await expectProblem(
      await handler(
        new Request(`${ORIGIN}/api${restaurantPath}?includeArchived=maybe`, { headers: client }),
      ),
      400,
      'VALIDATION_FAILED',
    );
    // The path as sent, base path included.
    expect(problem.instance).toBe(`/api${restaurantPath}`);
    for (const outside of [restaurantPath, `/apiary${restaurantPath}`, '/api', '/elsewhere']) {
      expect(await handler(new Request(`${ORIGIN}${outside}`)), outside).toBeUndefined();
    }
    expect(() => createFetchHandler({ ...testApiOptions(world.seed), basePath: 'api' })).toThrow(
      /basePath must be a path starting with '\/'/,
    );
  });
});

describe('the body of a web request', () => {
  it('is read from a Request made in process, which has no Content-Length', async () => {
    const handler = createFetchHandler(testApiOptions(aWorld().seed));
    const records = aWorld();
    const own = createFetchHandler(testApiOptions(records.seed));
    await expectProblem(await handler(unarchive('{"note":')), 400, 'MALFORMED_JSON');
    expect(unarchive('{}').headers.get('content-length')).toBeNull();
    const res = answered(
      await own(
        new Request(`${ORIGIN}/labor/v1/employees/${records.archivedEmployee.guid}/unarchive`, {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${await tokenFor([records.restaurant.guid])}`,
            [RESTAURANT_HEADER]: records.restaurant.guid,
            'content-type': 'application/json',
          },
          body: '{"note":"back from leave"}',
        }),
      ),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ guid: records.archivedEmployee.guid, deleted: false });
  });

  it('is inflated (gzip), limited as it arrives (413), and its encoding checked (415)', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed, { bodyLimitBytes: 1024 }));
    // Valid JSON, inflated: the request goes on to its use case (the employee is archived: 200).
    const inflated = answered(
      await handler(unarchive(gzipSync('{"note":"zipped"}'), { 'content-encoding': 'gzip' })),
    );
    expect(inflated.status, await inflated.clone().text()).toBe(200);
    const large = JSON.stringify({ padding: 'x'.repeat(4096) });
    await expectProblem(await handler(unarchive(large)), 413, 'PAYLOAD_TOO_LARGE');
    // Small on the wire, large once inflated.
    await expectProblem(
      await handler(unarchive(gzipSync(large), { 'content-encoding': 'gzip' })),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    await expectProblem(
      await handler(unarchive(gzipSync('{}'), { 'content-encoding': 'zstd' })),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('is 400 when the host read it already, and a stream that fails is a 400, not a 500', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed));
    const read = unarchive('{}');
    await read.text();
    await expectProblem(await handler(read), 400, 'MALFORMED_JSON');
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"note":'));
        controller.error(new Error('connection reset'));
      },
    });
    await expectProblem(await handler(unarchive(failing)), 400, 'MALFORMED_JSON');
  });

  it('is never read for a request refused on its head (401, 403, 415)', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed));
    let pulls = 0;
    // No queue to fill (highWaterMark 0): the source is pulled only when the body is read.
    const watched = () =>
      new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulls += 1;
            controller.enqueue(new TextEncoder().encode('{}'));
            controller.close();
          },
        },
        { highWaterMark: 0 },
      );
    const readOnly = await tokenFor([world.restaurant.guid], { scope: 'restaurants:read' });
    const refused = [
      [unarchive(watched(), { authorization: 'Bearer not.a.jwt' }), 401, 'INVALID_TOKEN'],
      [unarchive(watched(), { authorization: `Bearer ${readOnly}` }), 403, 'INSUFFICIENT_SCOPE'],
      [unarchive(watched(), { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ] as const;
    for (const [request, status, code] of refused) {
      await expectProblem(await handler(request), status, code);
      expect(request.bodyUsed).toBe(false);
    }
    expect(pulls).toBe(0);
    // The same body, for a request whose head passes, is read.
    const accepted = unarchive(watched());
    expect(answered(await handler(accepted)).status).toBe(200);
    expect([accepted.bodyUsed, pulls]).toEqual([true, 1]);
  });
});

describe("the client's address", () => {
  /** A request that names no restaurant: the per-address limits count it (then a 400). */
  const anonymous = () =>
    new Request(`${ORIGIN}${restaurantPath}`, { headers: { authorization: client.authorization } });
  const limits = { rateLimit: { perSecond: 1, per15Minutes: 100 } };

  it('comes from the host through getClientAddress, with what the host passes beside the request', async () => {
    const contexts: unknown[] = [];
    const handler = createFetchHandler({
      ...testApiOptions(world.seed, limits),
      getClientAddress: (_request, context: { address: string }) => {
        contexts.push(context);
        return context.address;
      },
    });
    await expectProblem(
      await handler(anonymous(), { address: '192.0.2.1' }),
      400,
      'VALIDATION_FAILED',
    );
    await expectProblem(await handler(anonymous(), { address: '192.0.2.1' }), 429, 'RATE_LIMITED');
    // Another address has its own count.
    await expectProblem(
      await handler(anonymous(), { address: '192.0.2.2' }),
      400,
      'VALIDATION_FAILED',
    );
    expect(contexts).toEqual([
      { address: '192.0.2.1' },
      { address: '192.0.2.1' },
      { address: '192.0.2.2' },
    ]);
  });

  it('rejects, rather than throws, when getClientAddress throws', async () => {
    const handler = createFetchHandler({
      ...testApiOptions(world.seed),
      getClientAddress: () => {
        throw new Error('no address here');
      },
    });
    let answer: Promise<unknown> | undefined;
    expect(() => {
      answer = handler(anonymous());
    }).not.toThrow();
    await expect(answer).rejects.toThrow('no address here');
  });

  it('without getClientAddress, is one count for every request that names no restaurant', async () => {
    const handler = createFetchHandler(testApiOptions(world.seed, limits));
    await expectProblem(await handler(anonymous()), 400, 'VALIDATION_FAILED');
    await expectProblem(await handler(anonymous()), 429, 'RATE_LIMITED');
    // Requests that name their restaurant count against it, as on every adapter.
    const ok = answered(
      await handler(new Request(`${ORIGIN}${restaurantPath}`, { headers: client })),
    );
    expect(ok.status).toBe(200);
  });
});

it('records each request as its answer is handed over: the log line with its status', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger: Logger = {
    info: (details, msg) => lines.push({ ...details, msg }),
    warn: (details, msg) => lines.push({ ...details, msg }),
    error: (details, msg) => lines.push({ ...details, msg }),
    child: () => logger,
  };
  const handler = createFetchHandler(testApiOptions(world.seed, { logger }));
  const res = answered(
    await handler(new Request(`${ORIGIN}${restaurantPath}`, { headers: client })),
  );
  expect(res.status).toBe(200);
  expect(lines.filter((line) => line.msg === 'request')).toEqual([
    expect.objectContaining({
      requestId: res.headers.get('x-request-id'),
      method: 'GET',
      status: 200,
    }),
  ]);
});
