// A hand-written peer of the HTTP bench, started by http-bench.ts (and footprint.ts, for bare
// Express): `tsx server.ts <peer>`. Prints `{"port":…}` when listening; SIGTERM stops it.
// The workforce-kit rows are not here: the bench runs the reference server's bin for them.
import { expressBare, fastifyBare, honoBare, nodeBare } from './peers/bare.js';
import type { Listening } from './peers/common.js';
import { expressOpenapiValidator } from './peers/express-openapi-validator.js';
import { fastifyReference } from './peers/fastify-reference.js';
import { expressFloor, nodeFloor } from './peers/floor.js';
import { nestBare } from './peers/nest-bare.js';
import { openapiBackend } from './peers/openapi-backend.js';
import { pgPlain } from './peers/pg-plain.js';
import { nodePlain } from './peers/plain.js';

/** The peers by name: the names http-bench.ts's rows use. */
const PEERS: Record<string, () => Promise<Listening>> = {
  bare: expressBare,
  'node-bare': nodeBare,
  'node-floor': nodeFloor,
  'node-plain': nodePlain,
  'pg-plain': pgPlain,
  'express-floor': expressFloor,
  'fastify-bare': fastifyBare,
  'hono-bare': honoBare,
  'nest-bare': nestBare,
  'fastify-reference': fastifyReference,
  'openapi-backend': openapiBackend,
  'express-openapi-validator': expressOpenapiValidator,
};

const name = process.argv[2] ?? '';
const start = PEERS[name];
if (start === undefined) {
  process.stderr.write(`unknown peer "${name}" (known: ${Object.keys(PEERS).join(', ')})\n`);
  process.exit(2);
}
const peer = await start();
process.stdout.write(`${JSON.stringify({ port: peer.port })}\n`);
const stop = () => void peer.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
