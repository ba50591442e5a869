// Metrics and traces of the reference server as a real process, on each web framework: GET
// /metrics after requests of every operation (and the webhook relay's deliveries), outside the
// API's auth and rate limits; METRICS=false; and spans exported over OTLP/HTTP to a receiver run
// here, whose trace ids the request's log lines carry.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HTTP_FRAMEWORKS } from '../../packages/server/src/config.js';
import { devLogin, type ServerProcess, startReferenceServer } from '../support/reference-server.js';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const SHIFT = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
const HARBOR_CLIENT = {
  clientId: 'harbor-street-integration',
  clientSecret: 'demo-secret-harbor-street-7d3f9a',
};

/** A local HTTP receiver that answers 200 to every POST and keeps what it got, by path. */
interface Receiver {
  readonly url: string;
  readonly bodies: { readonly path: string; readonly body: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bodies: { path: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The value of the sample `name{labels}` in Prometheus text (labels as printed), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(HTTP_FRAMEWORKS)('GET /metrics of the reference server on %s', (framework) => {
  let server: ServerProcess;
  let receiver: Receiver;
  let token: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startReferenceServer({
      HTTP_FRAMEWORK: framework,
      RATE_LIMIT_PER_SECOND: '3',
      WEBHOOK_URLS: `${receiver.url}/hooks`,
      WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    });
    token = await devLogin(server.url, HARBOR_CLIENT);
  }, 60_000);

  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    await receiver.close();
  });

  const call = (method: string, path: string, authorized = true) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        'Platform-Restaurant-External-ID': HARBOR,
        'content-type': 'application/json',
        ...(authorized ? { authorization: `Bearer ${token}` } : {}),
      },
    });

  it('counts every operation by status, with the process metrics, in Prometheus text', async () => {
    const statuses = [
      (await call('GET', `/restaurants/v1/restaurants/${HARBOR}`)).status,
      // Maria is archived in the demo seed: unarchived, then archived again (two changes).
      (await call('PUT', `/labor/v1/employees/${MARIA}/unarchive`)).status,
      (await call('DELETE', `/labor/v1/employees/${MARIA}`)).status,
    ];
    // The rate limit is 3 a second: the next second is a new window.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    statuses.push(
      (await call('DELETE', `/labor/v1/shifts/${SHIFT}`)).status,
      (await call('GET', `/restaurants/v1/restaurants/${HARBOR}`, false)).status,
    );
    expect(statuses).toEqual([200, 200, 200, 200, 401]);

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    for (const operation of [
      'getRestaurant',
      'archiveEmployee',
      'unarchiveEmployee',
      'deleteShift',
    ]) {
      expect(
        sample(text, `workforce_kit_http_requests_total{operation="${operation}",status="200"}`),
      ).toBe(1);
    }
    expect(
      sample(text, 'workforce_kit_http_requests_total{operation="getRestaurant",status="401"}'),
    ).toBe(1);
    expect(
      sample(text, 'workforce_kit_store_call_duration_seconds_count{call="employees.write"}'),
    ).toBe(2);
    // The store's group commit: three changes one after another, three write statements of one.
    expect(sample(text, 'workforce_kit_store_batch_size_count')).toBe(3);
    expect(sample(text, 'workforce_kit_store_batch_size_sum')).toBe(3);
    expect(sample(text, 'workforce_kit_store_batch_size_bucket{le="1"}')).toBe(3);
    expect(sample(text, 'workforce_kit_http_requests_in_flight')).toBe(0);
    // collectDefaultMetrics: the process's own.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it("shows the webhook relay's deliveries and backlog", async () => {
    // Three changes above, three events: each delivered to the receiver.
    await vi.waitFor(
      async () => {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        expect(sample(text, 'workforce_kit_webhook_deliveries_total{outcome="delivered"}')).toBe(3);
        expect(
          sample(
            text,
            `workforce_kit_webhook_backlog{destination="${receiver.url}/hooks",state="pending"}`,
          ),
        ).toBe(0);
        expect(sample(text, 'workforce_kit_webhook_oldest_pending_seconds')).toBe(0);
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(receiver.bodies.filter((hit) => hit.path === '/hooks')).toHaveLength(3);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, 'workforce_kit_webhook_deliveries_total{outcome="dead"}')).toBe(0);
    expect(
      sample(
        text,
        `workforce_kit_webhook_backlog{destination="${receiver.url}/hooks",state="dead"}`,
      ),
    ).toBe(0);
  }, 30_000);

  it('is served without a token, and outside the rate limits', async () => {
    const scrapes = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${server.url}/metrics`)),
    );
    expect(scrapes.map((res) => res.status)).toEqual(Array(8).fill(200));
    expect(scrapes[0]?.headers.has('ratelimit-limit')).toBe(false);
    // The API's own requests are limited (3 a second): the limit is on, /metrics is outside it.
    const api = await Promise.all(
      Array.from({ length: 8 }, () => call('GET', `/restaurants/v1/restaurants/${HARBOR}`)),
    );
    expect(api.map((res) => res.status)).toContain(429);
  });
});

// One server for both (a start is a second or more of CPU): /metrics is off, the spans go out.
describe.each(HTTP_FRAMEWORKS)(
  'the reference server on %s, with METRICS=false and an OTLP endpoint',
  (framework) => {
    let collector: Receiver;
    let server: ServerProcess;

    beforeAll(async () => {
      collector = await startReceiver();
      server = await startReferenceServer({
        HTTP_FRAMEWORK: framework,
        STORE: 'memory',
        METRICS: 'false',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'workforce-kit-e2e',
        // The batch is not due before the test ends: only the flush on shutdown sends it.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      });
    }, 60_000);

    afterAll(async () => {
      // Stopped by the last test; at once if it did not get there.
      await server?.stop();
      await collector?.close();
    });

    it('serves no /metrics with METRICS=false', async () => {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('exports the spans of a request over OTLP/HTTP (flushed on shutdown); its log lines carry the traceId', async () => {
      const traceId = randomBytes(16).toString('hex');
      const parentId = randomBytes(8).toString('hex');
      let requestId = '';
      try {
        const token = await devLogin(server.url, HARBOR_CLIENT);
        const res = await fetch(`${server.url}/restaurants/v1/restaurants/${HARBOR}`, {
          headers: {
            authorization: `Bearer ${token}`,
            'Platform-Restaurant-External-ID': HARBOR,
            traceparent: `00-${traceId}-${parentId}-01`,
          },
        });
        expect(res.status).toBe(200);
        requestId = res.headers.get('x-request-id') ?? '';
        expect(requestId).not.toBe('');
        expect(collector.bodies).toEqual([]);
      } finally {
        expect(await server.stop()).toBe(0);
      }

      const exported = collector.bodies.filter((hit) => hit.path === '/v1/traces');
      expect(exported.length).toBeGreaterThan(0);
      const spans = exported.flatMap((hit) => {
        const body = JSON.parse(hit.body) as OtlpTraces;
        return body.resourceSpans.flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) =>
            scope.spans.map((span) => ({ ...span, resource: resource.resource })),
          ),
        );
      });
      const server_ = spans.find((span) =>
        span.attributes.some(
          (a) => a.key === 'workforce_kit.request_id' && a.value.stringValue === requestId,
        ),
      );
      expect(server_).toMatchObject({
        name: 'GET /restaurants/v1/restaurants/{restaurantGUID}',
        traceId,
        parentSpanId: parentId,
        kind: 2, // SERVER
      });
      expect(server_?.resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'workforce-kit-e2e' },
      });
      const lookup = spans.find((span) => span.name === 'restaurants.findByGuid');
      expect(lookup).toMatchObject({ traceId, parentSpanId: server_?.spanId });

      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.requestId === requestId);
      expect(lines.map((line) => line.msg)).toContain('request');
      for (const line of lines) expect(line.traceId).toBe(traceId);
    }, 60_000);
  },
);

/** What the OTLP/HTTP JSON exporter posts (the parts read here). */
interface OtlpTraces {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly OtlpAttribute[] };
    readonly scopeSpans: readonly {
      readonly spans: readonly {
        readonly name: string;
        readonly traceId: string;
        readonly spanId: string;
        readonly parentSpanId?: string;
        readonly kind: number;
        readonly attributes: readonly OtlpAttribute[];
      }[];
    }[];
  }[];
}

interface OtlpAttribute {
  readonly key: string;
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string };
}
