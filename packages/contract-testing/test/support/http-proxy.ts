// A small HTTP proxy for the concurrent group's tests: each request goes to the next of its
// backends in turn (a round-robin balancer in front of several server processes), held a few
// milliseconds first when asked (a network between the kit and the target, so that requests sent
// at once reach the target at once and stay under way together). It forwards the method, the path
// as sent, the headers and the body, and answers with the backend's status, headers (Date
// included) and body.
import { Agent, createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpProxy {
  readonly url: string;
  /** Requests forwarded, by backend. */
  readonly forwarded: readonly number[];
  /** The most requests it had under way at once (received, not yet answered in full). */
  readonly mostUnderWay: () => number;
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te']);

const endToEnd = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/**
 * Starts a proxy on a loopback port in front of `backends` (base URLs), taking them in turn for
 * each request; `delayMs(n)` is how long the `n`th request waits before it is forwarded.
 */
export async function startProxy(
  backends: readonly string[],
  delayMs: (n: number) => number = () => 0,
): Promise<HttpProxy> {
  const agent = new Agent({ keepAlive: true });
  const forwarded = backends.map(() => 0);
  let count = 0;
  let underWay = 0;
  let most = 0;
  const server: Server = createServer((req, res) => {
    const n = count++;
    most = Math.max(most, ++underWay);
    res.once('close', () => {
      underWay--;
    });
    const index = n % backends.length;
    const backend = new URL(backends[index] as string);
    forwarded[index] = (forwarded[index] ?? 0) + 1;
    const forward = () => {
      const outgoing = request(
        {
          host: backend.hostname,
          port: backend.port,
          method: req.method,
          path: req.url,
          headers: endToEnd(req.headers),
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
          answer.pipe(res);
        },
      );
      outgoing.on('error', (error) => {
        res.destroy(error);
      });
      req.pipe(outgoing);
    };
    const wait = delayMs(n);
    if (wait > 0) setTimeout(forward, wait);
    else forward();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    mostUnderWay: () => most,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
