// What the kit sends its requests to: a running server (a base URL), or an app in this process
// (an Express app, a `node:http` request listener), which the kit serves on an ephemeral loopback
// port. Given a factory instead, the kit makes a fresh app for each run of a stateful property,
// so that every run starts from the seed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An in-process app: an Express app, or any `node:http` request listener. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The deployment under test:
 * - a base URL (`http://127.0.0.1:8080`, or with a prefix: `http://host/api`): a running server,
 *   freshly seeded;
 * - a request handler (an Express app): served by the kit on an ephemeral port;
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
    current = await factory();
    fresh = async () => {
      current = await factory();
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
