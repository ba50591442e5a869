// The Bun rows of the HTTP bench, started by http-rows.ts on Bun (the binary of bench's `bun`
// package): `bun bun/bun-server.ts <row>`. Prints `{"port":…}` when listening; SIGTERM stops it.
//
// - bun-bare: Bun.serve alone, the method and the path's shape picking the body, serialised per
//   request (as node-bare does);
// - wk-bun: the fetch adapter on Bun.serve, with the reference server's API options as its bin
//   makes them from the same environment (the bench's: JWT, rate limits raised, LOG_LEVEL info, a
//   log line per request to stdout, metrics kept), over the memory store of the bench's seed file.
import { readFileSync } from 'node:fs';
import { createMemoryStore } from '@workforce-kit/core';
import { createFetchHandler } from '@workforce-kit/fetch-adapter';
import { createJwtVerifier } from '@workforce-kit/http';
import { parseSeed } from '@workforce-kit/seed-file';
import { loadConfig } from '@workforce-kit/server';
import { referenceApiOptions } from '../../packages/server/src/app.js';
import { serverRegistry } from '../../packages/server/src/metrics.js';
import { serverLogger } from '../../packages/server/src/server.js';
import { BODIES, JSON_TYPE } from '../peers/common.js';

const UNARCHIVE = '/unarchive';
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';

function bare(): (request: Request) => Response {
  return (request) => {
    const { pathname } = new URL(request.url);
    const body =
      request.method === 'GET' && pathname.startsWith(RESTAURANTS)
        ? BODIES.restaurant
        : request.method === 'DELETE' && pathname.startsWith(EMPLOYEES)
          ? BODIES.archived
          : request.method === 'PUT' &&
              pathname.startsWith(EMPLOYEES) &&
              pathname.endsWith(UNARCHIVE)
            ? BODIES.live
            : undefined;
    if (body === undefined) return new Response(null, { status: 404 });
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': JSON_TYPE } });
  };
}

function workforceKit(): (request: Request, server: Bun.Server<undefined>) => Promise<Response> {
  const config = loadConfig(process.env)._unsafeUnwrap();
  if (config.auth.mode !== 'jwt' || !('hs256Secret' in config.auth.key)) {
    throw new Error('wk-bun runs with AUTH_MODE=jwt and AUTH_HS256_SECRET, as the bench sets');
  }
  const seed = parseSeed(JSON.parse(readFileSync(config.seedFile, 'utf8')), new Date());
  const store = createMemoryStore(seed._unsafeUnwrap());
  const api = createFetchHandler({
    ...referenceApiOptions(
      { config, logger: serverLogger(config.logLevel), store, sharedLimiter: undefined },
      createJwtVerifier({
        hs256Secret: config.auth.key.hs256Secret,
        ...(config.auth.issuer === undefined ? {} : { issuer: config.auth.issuer }),
        ...(config.auth.audience === undefined ? {} : { audience: config.auth.audience }),
      }),
      config.metrics ? serverRegistry() : undefined,
      false,
    ),
    getClientAddress: (request, server: Bun.Server<undefined>) =>
      server.requestIP(request)?.address,
  });
  return async (request, server) =>
    (await api(request, server)) ?? new Response(null, { status: 404 });
}

const row = process.argv[2] ?? '';
if (row !== 'bun-bare' && row !== 'wk-bun') {
  process.stderr.write(`unknown row "${row}" (known: bun-bare, wk-bun)\n`);
  process.exit(2);
}
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: row === 'bun-bare' ? bare() : workforceKit(),
});
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
const stop = () => void Promise.resolve(server.stop(true)).then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
