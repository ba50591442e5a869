// Webhooks of the reference server on PGlite (the relay in the server's process), against real
// HTTP receivers: the signed delivery a receiver verifies with `standardwebhooks`, and what the
// deliverer makes of every kind of answer.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Guid } from '@workforce-kit/core';
import type { OutboxDelivery } from '@workforce-kit/postgres';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer, loadConfig, startServer } from '../src/index.js';

const silent = pino({ level: 'silent' });
const SECRET = 'a-test-secret-for-the-webhooks-0123456789';
const WEBHOOK_SECRET = `whsec_${Buffer.from('a 32-byte key for the test hook!').toString('base64')}`;
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b' as Guid;
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d' as Guid;
const closers: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
});

interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A real HTTP receiver on a loopback port, answering with `answer`. */
async function receiver(
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) =>
    res.writeHead(204).end(),
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    server,
  };
}

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('STORE=pglite with WEBHOOK_URLS', () => {
  it('sends each change, signed, with the record as the API answered it, and nothing for a no-op', async () => {
    const hook = await receiver();
    const server = await startServer(
      loadConfig({
        PORT: '0',
        AUTH_HS256_SECRET: SECRET,
        PGLITE_DIR: join(tmpdir(), `workforce-kit-webhooks-${randomUUID()}`),
        WEBHOOK_URLS: hook.url,
        WEBHOOK_SECRET,
      })._unsafeUnwrap(),
      silent,
    );
    closers.push(() => server.close());
    const login = await fetch(`${server.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: 'harbor-street-integration',
        clientSecret: 'demo-secret-harbor-street-7d3f9a',
        userAccessType: 'MACHINE_CLIENT',
      }),
    });
    const token = ((await login.json()) as { token: { accessToken: string } }).token.accessToken;
    const call = (method: string, path: string) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': HARBOR,
          'content-type': 'application/json',
          'x-request-id': `req-${method}-${path.length}`,
        },
      });

    const unarchived = await call('PUT', `/labor/v1/employees/${MARIA}/unarchive`);
    expect(unarchived.status).toBe(200);
    const employee = (await unarchived.json()) as { modifiedDate: string };
    await waitFor('the webhook', () => hook.received.length === 1);
    const [delivery] = hook.received;
    if (delivery === undefined) throw new Error('no delivery');

    const verified = new Webhook(WEBHOOK_SECRET).verify(delivery.body, delivery.headers);
    expect(verified).toEqual({
      type: 'employee.unarchived',
      timestamp: employee.modifiedDate,
      data: {
        restaurantGuid: HARBOR,
        employeeGuid: MARIA,
        occurredAt: employee.modifiedDate,
        requestId: `req-PUT-${`/labor/v1/employees/${MARIA}/unarchive`.length}`,
        record: employee,
      },
    });
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(delivery.body).not.toContain('passcode');
    const listed = await server.store.events.list(HARBOR);
    const event = listed._unsafeUnwrap().at(-1);
    expect(delivery.headers['webhook-id']).toBe(event?.eventId);

    // Deleting a shift twice: one change, one webhook.
    for (let i = 0; i < 2; i++)
      expect((await call('DELETE', '/labor/v1/shifts/SCHEDULER:shift-20260301-0042')).status).toBe(
        200,
      );
    await waitFor('the shift webhook', () => hook.received.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received.map((r) => JSON.parse(r.body).type)).toEqual([
      'employee.unarchived',
      'shift.deleted',
    ]);
    expect(server.relay?.counts()).toMatchObject({ delivered: 2, retry: 0, dead: 0 });
  }, 60_000);
});

describe('the webhook deliverer', () => {
  const delivery = (destination: string): OutboxDelivery => ({
    destination,
    position: 1,
    attempt: 1,
    recordedAt: Date.now(),
    event: {
      type: 'ShiftDeleted',
      restaurantGuid: HARBOR,
      shiftGuid: MARIA,
      occurredAt: '2026-03-01T00:00:00.000Z',
      eventId: randomUUID(),
      requestId: 'req-1',
    },
    record: {
      restaurantGuid: HARBOR,
      guid: MARIA,
      createdDate: '2026-03-01T00:00:00.000Z',
      modifiedDate: '2026-03-01T00:00:00.000Z',
      deleted: true,
      deletedDate: '2026-03-01T00:00:00.000Z',
    },
  });

  it('is delivered on a 2xx; a retry on another status, a redirect, a refused connection, a timeout', async () => {
    const ok = await receiver((_req, res) => res.writeHead(200).end('thanks'));
    const failing = await receiver((_req, res) => res.writeHead(500).end());
    const redirecting = await receiver((_req, res) =>
      res.writeHead(307, { location: ok.url }).end(),
    );
    const silentOne = await receiver(() => {});
    const refused = await receiver();
    await new Promise((resolve) => refused.server.close(resolve));
    const deliver = createWebhookDeliverer({ secret: WEBHOOK_SECRET, timeoutMs: 300 });
    const results = await deliver(
      [ok, failing, redirecting, refused, silentOne].map((r) => delivery(r.url)),
      new AbortController().signal,
    );
    expect(results).toEqual([
      { outcome: 'delivered' },
      { outcome: 'retry', error: 'HTTP 500' },
      { outcome: 'retry', error: 'HTTP 307' },
      { outcome: 'retry', error: expect.stringContaining('ECONNREFUSED') },
      { outcome: 'retry', error: 'no answer within 300 ms' },
    ]);
    expect(ok.received).toHaveLength(1);
  });

  it("is a retry, sent nowhere, for a delivery without its record or with another than its event's subject", async () => {
    const hook = await receiver();
    const deliver = createWebhookDeliverer({ secret: WEBHOOK_SECRET });
    const stored = delivery(hook.url);
    const results = await deliver(
      [
        { ...stored, record: null },
        { ...stored, record: { ...stored.record, guid: randomUUID() } },
        { ...stored, record: { ...stored.record, restaurantGuid: randomUUID() } },
      ],
      new AbortController().signal,
    );
    expect(results).toEqual([
      {
        outcome: 'retry',
        error: 'the event was stored without its record (before webhooks existed)',
      },
      { outcome: 'retry', error: "the record stored is not the event's subject" },
      { outcome: 'retry', error: "the record stored is not the event's subject" },
    ]);
    expect(hook.received).toHaveLength(0);
  });
});
