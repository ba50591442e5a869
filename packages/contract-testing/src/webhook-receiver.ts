// The kit's webhook receiver (`--webhooks-listen HOST:PORT`): an HTTP server that takes
// deliveries at any path, verifies each with the `standardwebhooks` package when it has the
// secret (the signature of `id.timestamp.body`, a timestamp within 5 minutes), and hands each
// verified delivery to the kit as an event. A delivery that fails verification is answered 401
// and handed to the kit as refused: never an event.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { EventRelay, type EventSource, type ObservedEvent } from './event-source.js';

/** Options of {@link startWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /** The address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** The port to listen on; 0 picks a free one (see {@link WebhookReceiver.url}). @default 0 */
  readonly port?: number;
  /**
   * The deployment's webhook secret (`whsec_` and the key's base64): each delivery is verified
   * with it. Without it (or `undefined`, as an unset environment variable gives), deliveries are
   * taken unverified. @default none
   */
  readonly secret?: string | undefined;
}

/** The kit's webhook receiver: an {@link EventSource} listening on {@link url}. */
export interface WebhookReceiver extends EventSource {
  /** Its base URL (`http://127.0.0.1:43117`): give the deployment any path under it. */
  readonly url: string;
  /** Stops listening, closing every connection. */
  close(): Promise<void>;
}

/** The largest body a delivery may have: far above an event's. */
const BODY_LIMIT = 1024 * 1024;

/** A delivery's headers as one value each, names in lower case. */
function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The fields of a body that name the event's record and request, as far as it has them. */
function eventOf(id: string, body: string, headers: Record<string, string>): ObservedEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const object = (value: unknown) =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const { type, data } = object(parsed);
  const fields = object(data);
  return {
    id,
    type: text(type) ?? '',
    restaurantGuid: text(fields.restaurantGuid),
    subject: text(fields.employeeGuid) ?? text(fields.shiftGuid),
    requestId: text(fields.requestId),
    record: fields.record,
    body,
    headers,
  };
}

/**
 * Starts the kit's webhook receiver: point the deployment's webhooks (`WEBHOOK_URLS` of the
 * reference server) at {@link WebhookReceiver.url}, directly or through a proxy of yours, and give
 * the receiver to the kit as its `events`. It answers a verified delivery 204, one that fails
 * verification 401, anything but a POST 405.
 *
 * @param options - where to listen, and the secret to verify deliveries with
 * @returns the receiver, listening
 * @throws when the secret is not a Standard Webhooks secret, or the address cannot be bound
 * @example
 * ```ts
 * const events = await startWebhookReceiver({ port: 4000, secret: process.env.WEBHOOK_SECRET });
 * // the deployment runs with WEBHOOK_URLS=http://127.0.0.1:4000/hooks
 * const report = await checkApiContract({ target, seed, auth, events });
 * await events.close();
 * ```
 */
export async function startWebhookReceiver(
  options: WebhookReceiverOptions = {},
): Promise<WebhookReceiver> {
  const { host = '127.0.0.1', port = 0, secret } = options;
  const verifier = secret === undefined ? undefined : new Webhook(secret);
  const relay = new EventRelay();

  function take(req: IncomingMessage, res: ServerResponse, body: string): void {
    const headers = flatHeaders(req);
    const id = headers['webhook-id'] ?? '';
    if (verifier !== undefined) {
      try {
        verifier.verify(body, headers, { jsonParse: false });
      } catch (error) {
        const claimed = eventOf(id, body, headers);
        relay.hand((sink) =>
          sink.refused({
            reason: `${req.method} ${req.url}: ${(error as Error).message}`,
            ...(id === '' ? {} : { id }),
            ...(claimed.requestId === undefined ? {} : { requestId: claimed.requestId }),
          }),
        );
        res.writeHead(401).end();
        return;
      }
    }
    const event = eventOf(id, body, headers);
    relay.hand((sink) => sink.event(event));
    res.writeHead(204).end();
  }

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > BODY_LIMIT) res.writeHead(413).end();
      else take(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    carries: { signatures: verifier !== undefined, bodies: true },
    subscribe: (sink) => relay.subscribe(sink),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
