// Requests on the wire: one keep-alive connection, an optional pace, 429s waited out (a 429 with
// Retry-After is a documented answer, never a violation), every exchange counted and kept in the
// transcript of the current run. The concurrent group opens more connections, one per branch of a
// case, each connected before its branch is released.

import {
  type ClientRequestArgs,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';

export interface WireRequest {
  readonly method: string;
  /** The path and query, percent-encoded, relative to the base URL. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface WireResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** When the request was sent, by the kit's clock (ms since the epoch). */
  readonly sentAt: number;
  /** From sending the request to the end of the answer, in ms. */
  readonly elapsedMs: number;
}

export interface Exchange {
  readonly request: WireRequest;
  readonly response: WireResponse;
  /** The branch of a concurrent case it was sent on (1, 2, …); absent on the main connection. */
  readonly branch?: number;
}

/** The target did not let the kit go on: rate-limited for too long, unreachable, silent. */
export class TargetUnavailable extends Error {
  override readonly name = 'TargetUnavailable';
}

/** The kit hung up on purpose, after sending the request and before the answer came. */
export class KitHungUp extends TargetUnavailable {}

export interface HttpClientOptions {
  readonly baseUrl: string;
  /** Requests per second at most; none when undefined. */
  readonly ratePerSecond?: number;
  /** The longest the kit waits out 429s for one request before it gives up. @default 30000 */
  readonly maxRateLimitWaitMs?: number;
  /** A request not answered by then fails the run. @default 30000 */
  readonly requestTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The value of a response header, joined when repeated. */
export function headerOf(res: WireResponse, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

export class HttpClient {
  readonly baseUrl: URL;
  /** Requests sent, 429s included. */
  requests = 0;
  /** 429 answers waited out. */
  rateLimited = 0;
  /** Time, in ms, during which at least one request was waiting out a 429 (branches' waits overlap). */
  rateLimitWaitMs = 0;
  /** Answers by status. */
  readonly statuses = new Map<number, number>();
  /** The exchanges of the current run. */
  transcript: Exchange[] = [];
  private readonly agent: HttpAgent;
  /** The branches' connections, by branch. */
  private readonly connections = new Map<number, Connection>();
  private readonly options: HttpClientOptions;
  private nextSlot = 0;
  /** Requests waiting out a 429 now, and since when some have been. */
  private waiting = 0;
  private waitingSince = 0;

  constructor(options: HttpClientOptions) {
    this.options = options;
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.agent =
      this.baseUrl.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 1 })
        : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  }

  /** The full URL of a request's path (the base URL's own path is its prefix). */
  urlOf(path: string): string {
    return `${this.baseUrl.origin}${this.baseUrl.pathname.replace(/\/$/, '')}${path}`;
  }

  /** Starts the transcript of a new run. */
  startRun(): void {
    this.transcript = [];
  }

  /**
   * Sends `req`; a 429 is waited out (Retry-After) and the request sent again. `onAnswer` hears
   * the status of every answer, each 429 included.
   */
  send(req: WireRequest, onAnswer?: (status: number) => void): Promise<WireResponse> {
    return this.sendOn(this.agent, undefined, req, onAnswer);
  }

  /**
   * The connection of branch `branch` of a concurrent case, its own: connected when this resolves
   * (the one of the last case when it is still open, a new one otherwise), so that the branch's
   * first request goes out at once. Its requests count here; `close` closes it.
   */
  async connection(branch: number): Promise<Connection> {
    const open = this.connections.get(branch);
    if (open?.connected) return open;
    open?.close();
    const options = {
      host: this.baseUrl.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.baseUrl.port === '' ? undefined : Number(this.baseUrl.port),
      servername: this.baseUrl.hostname,
    };
    const agent = await preconnectedAgent(this.baseUrl.protocol === 'https:', options);
    const connection = new Connection(this, agent, branch);
    this.connections.set(branch, connection);
    return connection;
  }

  /** Sends `req` over `agent`'s connection (see {@link send}), tagged with its branch. */
  async sendOn(
    agent: HttpAgent,
    branch: number | undefined,
    req: WireRequest,
    onAnswer?: (status: number) => void,
    hangUpAfterMs?: number,
  ): Promise<WireResponse> {
    const limit = this.options.maxRateLimitWaitMs ?? 30_000;
    let waited = 0;
    for (;;) {
      const res = await this.sendOnce(req, agent, hangUpAfterMs);
      onAnswer?.(res.status);
      if (res.status !== 429) {
        this.transcript.push(
          branch === undefined
            ? { request: req, response: res }
            : { request: req, response: res, branch },
        );
        return res;
      }
      this.rateLimited++;
      const retryAfter = Number(headerOf(res, 'Retry-After'));
      const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : 1000;
      if (waited + wait > limit) {
        throw new TargetUnavailable(
          `the target kept answering 429 for ${Math.round((waited + wait) / 1000)} s; raise its rate limits or pass a lower --rate`,
        );
      }
      waited += Math.max(wait, 50);
      await this.waitOut(Math.max(wait, 50));
    }
  }

  /** Sleeps `ms` for a 429, counting the time some request waits in {@link rateLimitWaitMs}. */
  private async waitOut(ms: number): Promise<void> {
    if (this.waiting++ === 0) this.waitingSince = performance.now();
    try {
      await sleep(ms);
    } finally {
      if (--this.waiting === 0) this.rateLimitWaitMs += performance.now() - this.waitingSince;
    }
  }

  private async pace(): Promise<void> {
    const rate = this.options.ratePerSecond;
    if (rate === undefined || rate <= 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + 1000 / rate;
    if (slot > now) await sleep(slot - now);
  }

  /**
   * Sends `req` once; with `hangUpAfterMs`, closes the connection that long after the request is
   * written, unless the answer came first (then {@link KitHungUp}).
   */
  private async sendOnce(
    req: WireRequest,
    agent: HttpAgent,
    hangUpAfterMs?: number,
  ): Promise<WireResponse> {
    await this.pace();
    this.requests++;
    const url = new URL(this.urlOf(req.path));
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const timeout = this.options.requestTimeoutMs ?? 30_000;
    const sentAt = Date.now();
    const started = performance.now();
    let hangUp: NodeJS.Timeout | undefined;
    const res = await new Promise<WireResponse>((resolve, reject) => {
      const outgoing = request(
        {
          host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port,
          method: req.method,
          // The path as generated, not as URL would normalize it.
          path: `${this.baseUrl.pathname.replace(/\/$/, '')}${req.path}`,
          headers: req.headers,
          agent,
          timeout,
        },
        (incoming) => {
          clearTimeout(hangUp);
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              text: Buffer.concat(chunks).toString('utf8'),
              sentAt,
              elapsedMs: performance.now() - started,
            }),
          );
        },
      );
      outgoing.on('timeout', () => {
        outgoing.destroy(new TargetUnavailable(`no answer within ${timeout} ms`));
      });
      outgoing.on('error', (error) =>
        reject(
          error instanceof TargetUnavailable
            ? error
            : new TargetUnavailable(`${req.method} ${req.path}: ${error.message}`),
        ),
      );
      if (hangUpAfterMs !== undefined) {
        outgoing.once('finish', () => {
          hangUp = setTimeout(
            () =>
              outgoing.destroy(
                new KitHungUp(
                  `${req.method} ${req.path}: the kit hung up ${hangUpAfterMs} ms after sending it, before the answer`,
                ),
              ),
            hangUpAfterMs,
          );
        });
      }
      outgoing.end(req.body);
    });
    this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
    return res;
  }

  close(): void {
    this.agent.destroy();
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }
}

/**
 * A keep-alive agent of one socket, connected before its first request: the socket is opened by
 * the agent's own `createConnection`, kept, and handed to the first request by an override of it
 * (Node's documented way for an agent to supply its own socket); a later request, should the
 * target close it, gets a new one.
 */
async function preconnectedAgent(
  tls: boolean,
  options: ClientRequestArgs & { readonly servername?: string },
): Promise<{ readonly agent: HttpAgent; readonly socket: () => Duplex | undefined }> {
  const agent = tls
    ? new HttpsAgent({ keepAlive: true, maxSockets: 1 })
    : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const create = agent.createConnection.bind(agent);
  const socket = create(options);
  if (socket === null || socket === undefined) return { agent, socket: () => undefined };
  await new Promise<void>((resolve, reject) => {
    socket.once(tls ? 'secureConnect' : 'connect', () => resolve());
    socket.once('error', (error) => {
      agent.destroy();
      reject(new TargetUnavailable(`cannot connect to ${options.host}: ${error.message}`));
    });
  });
  // An error before the first request (the target closed it) leaves a destroyed socket, which
  // the first request replaces.
  socket.removeAllListeners('error');
  socket.on('error', () => {});
  let ready: Duplex | undefined = socket;
  let current: Duplex | undefined = socket;
  agent.createConnection = (requestOptions, callback) => {
    const preconnected = ready;
    ready = undefined;
    current =
      preconnected !== undefined && !preconnected.destroyed
        ? preconnected
        : (create(requestOptions, callback) ?? undefined);
    return current;
  };
  const destroy = agent.destroy.bind(agent);
  agent.destroy = () => {
    ready?.destroy();
    destroy();
  };
  return { agent, socket: () => current };
}

/** A connection of its own, for one branch of a concurrent case; its requests count in the client. */
export class Connection {
  private readonly agent: HttpAgent;
  private readonly socket: () => Duplex | undefined;

  constructor(
    private readonly client: HttpClient,
    { agent, socket }: Awaited<ReturnType<typeof preconnectedAgent>>,
    /** The branch it serves (1, 2, …), which tags its exchanges in the transcript. */
    readonly branch: number,
  ) {
    this.agent = agent;
    this.socket = socket;
  }

  /** Whether its socket is still open (the target may close an idle one). */
  get connected(): boolean {
    const socket = this.socket();
    return socket !== undefined && !socket.destroyed;
  }

  /**
   * Sends `req` on this connection (see {@link HttpClient.send}); with `hangUpAfterMs`, the kit
   * closes the connection that long after the request is written, before the answer.
   */
  send(
    req: WireRequest,
    onAnswer?: (status: number) => void,
    hangUpAfterMs?: number,
  ): Promise<WireResponse> {
    return this.client.sendOn(this.agent, this.branch, req, onAnswer, hangUpAfterMs);
  }

  close(): void {
    this.agent.destroy();
  }
}
