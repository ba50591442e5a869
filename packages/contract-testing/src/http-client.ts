// Requests on the wire: one keep-alive connection, an optional pace, 429s waited out (a 429 with
// Retry-After is a documented answer, never a violation), every exchange counted and kept in the
// transcript of the current run.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

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
}

/** The target did not let the kit go on: rate-limited for too long, unreachable, silent. */
export class TargetUnavailable extends Error {
  override readonly name = 'TargetUnavailable';
}

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
  /** Answers by status. */
  readonly statuses = new Map<number, number>();
  /** The exchanges of the current run. */
  transcript: Exchange[] = [];
  private readonly agent: HttpAgent;
  private readonly options: HttpClientOptions;
  private nextSlot = 0;

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
  async send(req: WireRequest, onAnswer?: (status: number) => void): Promise<WireResponse> {
    const limit = this.options.maxRateLimitWaitMs ?? 30_000;
    let waited = 0;
    for (;;) {
      const res = await this.sendOnce(req);
      onAnswer?.(res.status);
      if (res.status !== 429) {
        this.transcript.push({ request: req, response: res });
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
      await sleep(Math.max(wait, 50));
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

  private async sendOnce(req: WireRequest): Promise<WireResponse> {
    await this.pace();
    this.requests++;
    const url = new URL(this.urlOf(req.path));
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const timeout = this.options.requestTimeoutMs ?? 30_000;
    const sentAt = Date.now();
    const started = performance.now();
    const res = await new Promise<WireResponse>((resolve, reject) => {
      const outgoing = request(
        {
          host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port,
          method: req.method,
          // The path as generated, not as URL would normalize it.
          path: `${this.baseUrl.pathname.replace(/\/$/, '')}${req.path}`,
          headers: req.headers,
          agent: this.agent,
          timeout,
        },
        (incoming) => {
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
      outgoing.end(req.body);
    });
    this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
    return res;
  }

  close(): void {
    this.agent.destroy();
  }
}
