// A deployment of the reference server for the contract kit with its events: processes on one
// PostgreSQL database (any URL: a proxy in front of the server, to break it, as well), each
// sending its webhooks to the kit's receiver through the one outbox (the relay is shared), behind
// a round-robin balancer. Each process has a port of its own, kept across a restart, so that the
// balancer's backends stay what they are when a test kills one (SIGKILL) and starts it again.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startWebhookReceiver, type WebhookReceiver } from '@workforce-kit/contract-testing';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { freePort } from '../../packages/contract-testing/test/support/free-port.js';
import { killTree } from '../support/processes.js';
import { type ServerProcess, startReferenceServer } from '../support/reference-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/** Options of {@link startEventsDeployment}. */
export interface EventsDeploymentOptions {
  /** The database the processes share (a proxy's URL, to break the connection to it). */
  readonly databaseUrl: string;
  /** The seed file it is loaded with (once: the processes start together on an empty database). */
  readonly seedFile: string;
  /** The HS256 secret of the tokens it takes (the kit's `auth.hs256Secret`). */
  readonly authSecret: string;
  /** Where its webhooks go: the kit's receiver (any path under it). */
  readonly webhookUrl: string;
  /** Its webhook secret, the kit's receiver's. */
  readonly webhookSecret: string;
  /** Processes behind the balancer. @default 2 */
  readonly processes?: number;
  /** More of the server's environment (all processes). @default none */
  readonly env?: Readonly<Record<string, string>>;
}

/** A running deployment. */
export interface EventsDeployment {
  /** The balancer's base URL: the kit's target. */
  readonly url: string;
  /** The processes, by index (one that was killed is its new process once restarted). */
  readonly servers: readonly ServerProcess[];
  /** Requests the balancer forwarded, by process. */
  readonly forwarded: readonly number[];
  /** SIGKILLs process `i` (its deliveries' claims come back to the others after their lease). */
  kill(i: number): Promise<void>;
  /** Starts process `i` again on its port (after {@link kill}). */
  restart(i: number): Promise<void>;
  /** Stops the balancer and every process. */
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te']);
const endToEnd = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/**
 * Starts `processes` reference servers on the database, with webhooks to `webhookUrl`, and a
 * round-robin balancer in front of them.
 */
export async function startEventsDeployment(
  options: EventsDeploymentOptions,
): Promise<EventsDeployment> {
  const count = options.processes ?? 2;
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const envOf = (port: number) => ({
    STORE: 'postgres',
    DATABASE_URL: options.databaseUrl,
    SEED_FILE: options.seedFile,
    PORT: String(port),
    AUTH_MODE: 'jwt',
    AUTH_HS256_SECRET: options.authSecret,
    AUTH_ISSUER: 'https://id.example.com/',
    AUTH_AUDIENCE: 'workforce-api',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_PER_15_MIN: '1000000',
    WEBHOOK_URLS: options.webhookUrl,
    WEBHOOK_SECRET: options.webhookSecret,
    ...options.env,
  });
  const started = await Promise.allSettled(ports.map((port) => startReferenceServer(envOf(port))));
  const servers = started.flatMap((each) => (each.status === 'fulfilled' ? [each.value] : []));
  const failed = started.find((each) => each.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(servers.map((server) => server.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const forwarded = ports.map(() => 0);
  let next = 0;
  const balancer: Server = createServer((req, res) => {
    const index = next++ % ports.length;
    forwarded[index] = (forwarded[index] ?? 0) + 1;
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: ports[index],
        method: req.method,
        path: req.url,
        headers: endToEnd(req.headers),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    // A backend that is gone drops the client's connection, as a balancer without retries does.
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
  const { port } = balancer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    servers,
    forwarded,
    kill: async (i) => {
      const server = servers[i] as ServerProcess;
      const exited = new Promise((resolve) => server.process.once('exit', resolve));
      killTree(server.process.pid);
      await exited;
    },
    restart: async (i) => {
      servers[i] = await startReferenceServer(envOf(ports[i] as number));
    },
    close: async () => {
      balancer.closeAllConnections();
      await new Promise((resolve) => balancer.close(resolve));
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

/** The reference server's demo seed, which the deployments of {@link startKitRig} are loaded with. */
export const DEMO_SEED_FILE = fileURLToPath(
  new URL('../../packages/server/seed/demo-seed.json', import.meta.url),
);

/** What a test of the kit's events against a deployment runs on: see {@link startKitRig}. */
export interface KitRig {
  /** The kit's webhook receiver, verifying with the deployment's secret: the kit's `events`. */
  readonly receiver: WebhookReceiver;
  /** Two processes on one new database of a PostgreSQL server of the test's own. */
  readonly deployment: EventsDeployment;
  /** The deployment's database, reached directly (not through {@link databaseProxy}). */
  readonly databaseUrl: string;
  /** The TCP proxy the processes reach the database through, when asked for: to break it. */
  readonly databaseProxy?: TcpProxy;
  /** The kit's `auth`: the HS256 secret, issuer and audience the deployment takes. */
  readonly auth: {
    readonly hs256Secret: string;
    readonly issuer: string;
    readonly audience: string;
  };
  /** Stops the deployment, the receiver and the PostgreSQL server. */
  close(): Promise<void>;
}

/**
 * Starts a PostgreSQL server, the kit's webhook receiver, and a deployment of two processes on
 * one database of it sending their webhooks to the receiver, loaded with the demo seed; with
 * `databaseProxy`, the processes reach the database through a TCP proxy (the rig's
 * `databaseProxy`). What has started is stopped again if a later part fails.
 */
export async function startKitRig(
  env?: Readonly<Record<string, string>>,
  options: { readonly databaseProxy?: boolean } = {},
): Promise<KitRig> {
  const authSecret = randomBytes(32).toString('hex');
  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
  let postgres: PostgresServer | undefined;
  let receiver: WebhookReceiver | undefined;
  let databaseProxy: TcpProxy | undefined;
  const close = async (deployment?: EventsDeployment) => {
    await deployment?.close();
    await databaseProxy?.close();
    await receiver?.close();
    await postgres?.destroy();
  };
  try {
    postgres = await startPostgresServer();
    receiver = await startWebhookReceiver({ secret: webhookSecret });
    const database = await postgres.createDatabase();
    if (options.databaseProxy === true) {
      databaseProxy = await startTcpProxy({
        host: '127.0.0.1',
        port: Number(new URL(database).port),
      });
    }
    const deployment = await startEventsDeployment({
      databaseUrl: databaseProxy?.through(database) ?? database,
      seedFile: DEMO_SEED_FILE,
      authSecret,
      webhookUrl: `${receiver.url}/hooks/workforce`,
      webhookSecret,
      ...(env === undefined ? {} : { env }),
    });
    return {
      receiver,
      deployment,
      databaseUrl: database,
      ...(databaseProxy === undefined ? {} : { databaseProxy }),
      auth: {
        hs256Secret: authSecret,
        issuer: 'https://id.example.com/',
        audience: 'workforce-api',
      },
      close: () => close(deployment),
    };
  } catch (error) {
    await close();
    throw error;
  }
}
