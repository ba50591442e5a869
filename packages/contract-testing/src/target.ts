// What the kit sends its requests to: a running server (a base URL), or an app in this process
// (an Express app, a `node:http` request listener), which the kit serves on an ephemeral loopback
// port. Given a factory instead, the kit makes a fresh app for each run of a stateful property,
// so that every run starts from the seed. Anything else is refused before the run starts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An in-process app: an Express app, or any `node:http` request listener. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The deployment under test:
 * - a base URL (`http://127.0.0.1:8080`, or with a prefix: `http://host/api`): a running server,
 *   freshly seeded;
 * - a request handler (an Express app; a Fastify instance's is `app.routing`, once
 *   `await app.ready()` has run): served by the kit on an ephemeral port;
 * - `{ factory }`: makes an app over a freshly seeded store; the kit makes one for each run of
 *   the stateful, auth and isolation properties, so that each run starts from the seed;
 * - `{ handler, reset }`: one app, and a function that puts its store back to the seed (cheaper
 *   than a new app when building one compiles the spec); called before each such run.
 */
export type ContractTarget =
  | string
  | URL
  | RequestHandler
  | {
      /** Makes an app over a freshly seeded store. */
      readonly factory: () => RequestHandler | Promise<RequestHandler>;
    }
  | {
      /** The app. */
      readonly handler: RequestHandler;
      /** Puts the app's store back to the seed. */
      readonly reset: () => unknown;
    };

/** What `target` may be, in the words of the error that refuses anything else. */
const ACCEPTED_TARGETS =
  'an http(s) base URL (a string or URL), a request listener (an Express app, a node:http ' +
  'listener), { factory } (a function that makes a freshly seeded app) or { handler, reset }';

/**
 * Throws a TypeError that names what `target` may be unless it is one of them, so that a wrong
 * target fails at once rather than at its first use (`target.reset is not a function`). Given a
 * Fastify instance, the error says what to pass instead.
 */
export function assertContractTarget(target: unknown): asserts target is ContractTarget {
  const problem = targetProblem(target);
  if (problem !== undefined) {
    throw new TypeError(`target must be ${ACCEPTED_TARGETS}; ${problem}`);
  }
}

/** What to pass instead of a Fastify instance, in the error that refuses one. */
const FASTIFY_ADVICE =
  'a Fastify instance, which is not a request listener. Once `await app.ready()` has run, its ' +
  'listener is `app.routing`: pass `{ factory: async () => { const app = await buildApp(); ' +
  'await app.ready(); return app.routing; } }` (a freshly seeded app for each run; close the ' +
  'one before), `{ handler: app.routing, reset }` (reset puts its store back to the seed), or ' +
  '`app.routing` (one app, never reset: a live target)';

/** Whether `value` looks like a Fastify instance: its listener at `routing`, its `server`. */
const isFastifyInstance = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  'routing' in value &&
  typeof value.routing === 'function' &&
  'server' in value;

/** What is wrong with `target`, or undefined if it is a {@link ContractTarget}. */
function targetProblem(target: unknown): string | undefined {
  if (typeof target === 'string' || target instanceof URL) return urlProblem(String(target));
  if (typeof target === 'function') return undefined;
  if (typeof target !== 'object' || target === null) return `got ${describeValue(target)}`;
  if ('factory' in target) {
    return typeof target.factory === 'function'
      ? undefined
      : `got { factory } whose factory is ${describeValue(target.factory)}, not a function`;
  }
  if ('handler' in target || 'reset' in target) {
    const handler = 'handler' in target ? target.handler : undefined;
    const reset = 'reset' in target ? target.reset : undefined;
    if (isFastifyInstance(handler))
      return `got { handler, reset } whose handler is ${FASTIFY_ADVICE}`;
    if (typeof handler !== 'function') {
      return `got { handler, reset } whose handler is ${describeValue(handler)}, not a request listener`;
    }
    if (typeof reset !== 'function') {
      return (
        `got { handler, reset } whose reset is ${describeValue(reset)}, not a function that puts ` +
        'the store back to the seed (without one, pass the handler itself)'
      );
    }
    return undefined;
  }
  if (isFastifyInstance(target)) return `got ${FASTIFY_ADVICE}`;
  return `got ${describeValue(target)}`;
}

/** What is wrong with a base URL, or undefined: an http(s) URL without a query or a fragment. */
function urlProblem(url: string): string | undefined {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return `got ${JSON.stringify(url)}, which is not an http(s) URL`;
  }
  const { search, hash } = new URL(url);
  if (search !== '' || hash !== '') {
    return `got ${JSON.stringify(url)}, which has a query or a fragment: the kit adds paths to it`;
  }
  return undefined;
}

/**
 * The request listener a target's factory made, or a TypeError that says what it gave instead
 * (a Fastify instance is its likeliest: `app` where `app.routing` was meant).
 */
async function madeListener(factory: () => RequestHandler | Promise<RequestHandler>) {
  const made: unknown = await factory();
  if (typeof made === 'function') return made as RequestHandler;
  const what = isFastifyInstance(made) ? FASTIFY_ADVICE : describeValue(made);
  throw new TypeError(`target's factory must make a request listener; it made ${what}`);
}

/** A value as an error names it: its type, or an object's class or keys. */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value} (${String(value).slice(0, 40)})`;
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  if (typeof name === 'string' && name !== '' && name !== 'Object') return `an instance of ${name}`;
  const keys = Object.keys(value);
  return keys.length === 0 ? 'an empty object' : `an object with ${keys.slice(0, 6).join(', ')}`;
}

/** A target resolved to a base URL. */
export interface ResolvedTarget {
  readonly baseUrl: string;
  /** Puts a fresh app (a freshly seeded store) behind the base URL; undefined for a live target. */
  readonly fresh: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

/**
 * The target as a base URL, with `basePath` (where the API is mounted within it, `/api`) after its
 * own path.
 */
export async function resolveTarget(
  target: ContractTarget,
  basePath = '',
): Promise<ResolvedTarget> {
  if (basePath !== '' && !/^\/[^?#]*$/.test(basePath)) {
    throw new TypeError(
      `basePath must be a path that starts with "/" (such as "/api"): ${basePath}`,
    );
  }
  const under = (url: string) => `${url.replace(/\/$/, '')}${basePath.replace(/\/$/, '')}`;
  if (typeof target === 'string' || target instanceof URL) {
    return { baseUrl: under(String(target)), fresh: undefined, close: async () => {} };
  }
  let current: RequestHandler;
  let fresh: (() => Promise<void>) | undefined;
  if (typeof target === 'function') current = target;
  else if ('factory' in target) {
    const { factory } = target;
    current = await madeListener(factory);
    fresh = async () => {
      current = await madeListener(factory);
    };
  } else {
    current = target.handler;
    fresh = async () => {
      await target.reset();
    };
  }
  const server = createServer((req, res) => {
    current(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: under(`http://127.0.0.1:${port}`),
    fresh,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
