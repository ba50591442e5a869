import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type Employee, eventSubject, type RecordedEvent, type Shift } from '@workforce-kit/core';
import { toWebhookBody } from '@workforce-kit/http';
import type { Deliverer, DeliveryResult, OutboxDelivery } from '@workforce-kit/postgres';
import { Webhook } from 'standardwebhooks';

/** Options of {@link createWebhookDeliverer}. */
export interface WebhookDelivererOptions {
  /** `whsec_` and the base64 of the signing key (Standard Webhooks). */
  readonly secret: string;
  /** A receiver that has not answered by then is a retry. @default 5000 */
  readonly timeoutMs?: number;
  /** The `User-Agent` of the deliveries. @default `workforce-kit-webhooks` */
  readonly userAgent?: string;
}

/** The headers and body of one delivery, signed. */
export interface SignedWebhook {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Signs a delivery as Standard Webhooks defines (with the `standardwebhooks` package):
 * `webhook-id` is the event's id (the same on every retry), `webhook-timestamp` the time of this
 * attempt, `webhook-signature` `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. The body
 * is `toWebhookBody`'s (of `@workforce-kit/http`), the same bytes on every attempt.
 *
 * @throws Error when the delivery has no record, or a record that is not its event's subject
 * @example
 * ```ts
 * import { Webhook } from 'standardwebhooks';
 *
 * const { headers, body } = signWebhook(new Webhook(secret), delivery, new Date());
 * ```
 */
export function signWebhook(signer: Webhook, delivery: OutboxDelivery, now: Date): SignedWebhook {
  const { event, record } = delivery;
  if (record === null) {
    throw new Error('the event was stored without its record (before webhooks existed)');
  }
  if (!isSubjectOf(event, record)) throw new Error("the record stored is not the event's subject");
  const body = JSON.stringify(toWebhookBody(event, record));
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signer.sign(event.eventId, now, body),
    },
    body,
  };
}

/** Whether a record is the event's subject: the employee or shift it is about, in its restaurant. */
function isSubjectOf(event: RecordedEvent, record: object): record is Employee | Shift {
  return (
    'guid' in record &&
    'restaurantGuid' in record &&
    record.guid === eventSubject(event) &&
    record.restaurantGuid === event.restaurantGuid
  );
}

function failure(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * The reference server's deliverer for the outbox relay: each delivery is an HTTP POST of the
 * signed webhook to its destination URL, all of a batch at once. A 2xx answer is delivered;
 * another status, a refused connection or no answer within `timeoutMs` is a retry (a redirect is
 * not followed: it is a retry too). Connections are kept alive between deliveries (`node:http`,
 * which costs less CPU per delivery than `fetch`).
 *
 * @example
 * ```ts
 * import { createOutboxRelay } from '@workforce-kit/postgres';
 *
 * const relay = await createOutboxRelay({
 *   client: pool,
 *   destinations: ['https://hooks.example.com/workforce'],
 *   deliver: createWebhookDeliverer({ secret: process.env.WEBHOOK_SECRET ?? '' }),
 * });
 * ```
 */
export function createWebhookDeliverer(options: WebhookDelivererOptions): Deliverer {
  const signer = new Webhook(options.secret);
  const timeoutMs = options.timeoutMs ?? 5000;
  const userAgent = options.userAgent ?? 'workforce-kit-webhooks';
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
  };

  /** POSTs the body; resolves with the status once the answer's head is in (its body is drained). */
  function send(url: URL, signed: SignedWebhook, signal: AbortSignal): Promise<number> {
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: 'POST',
          headers: {
            ...signed.headers,
            'content-length': Buffer.byteLength(signed.body),
            'user-agent': userAgent,
          },
          agent: secure ? agents.https : agents.http,
          signal,
        },
        (response) => {
          // The answer's body is not read: the status decides.
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(signed.body);
    });
  }

  async function post(delivery: OutboxDelivery, stop: AbortSignal): Promise<DeliveryResult> {
    let signed: SignedWebhook;
    let url: URL;
    try {
      signed = signWebhook(signer, delivery, new Date());
      url = new URL(delivery.destination);
    } catch (error) {
      return { outcome: 'retry', error: failure(error) };
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const status = await send(url, signed, AbortSignal.any([timeout, stop]));
      return status >= 200 && status < 300
        ? { outcome: 'delivered' }
        : { outcome: 'retry', error: `HTTP ${status}` };
    } catch (error) {
      return {
        outcome: 'retry',
        error: timeout.aborted ? `no answer within ${timeoutMs} ms` : failure(error),
      };
    }
  }

  return (batch, stop) => Promise.all(batch.map((delivery) => post(delivery, stop)));
}
