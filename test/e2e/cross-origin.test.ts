// A web app on one origin calling the API on another, in headless Chromium, with CORS set up the
// host's own way: Nest's enableCors() on its Express and Fastify platforms, the cors middleware
// before the Express router and the node:http handler, @fastify/cors before the Fastify plugin,
// hono/cors before the fetch handler in Hono. The page's requests carry a
// bearer token and a restaurant header, and its change a JSON body, so Chromium sends a preflight
// before each; a page of an origin the host's CORS does not name gets nothing. And the contract
// kit's checks of paths and methods pass through one host of each CORS library, which answers
// OPTIONS itself.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import fastifyCors from '@fastify/cors';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import { aWorld } from '@workforce-kit/core/testing';
import { createRouter } from '@workforce-kit/express-adapter';
import { frameworkErrors, workforceKit } from '@workforce-kit/fastify-adapter';
import { createFetchHandler } from '@workforce-kit/fetch-adapter';
import type { ApiOptions } from '@workforce-kit/http';
import {
  RESTAURANT_HEADER,
  TEST_SECRET,
  testApiOptions,
  tokenFor,
} from '@workforce-kit/http/testing';
import { WorkforceKitModule } from '@workforce-kit/nestjs';
import { createRequestHandler } from '@workforce-kit/node-adapter';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';
import { DEMO_SEED_FILE } from '@workforce-kit/server';
import cors from 'cors';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { cors as honoCors } from 'hono/cors';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, serveOnLoopback } from '../support/adapters.js';
import { launchChromium } from '../support/chromium.js';

/** The CORS settings every host is given, in the words the three CORS libraries share. */
interface CorsSettings {
  readonly origin: string;
  readonly methods: string[];
  readonly exposedHeaders: string[];
}

interface Host {
  readonly name: string;
  /** The CORS library in front of the API. */
  readonly cors: 'cors' | '@fastify/cors' | 'hono/cors';
  /** Serves the API of `options` under `/api` of a new app with the host's CORS; its base URL. */
  serve(options: ApiOptions, settings: CorsSettings): Promise<Served>;
}

async function nestHost(
  platform: ExpressAdapter | FastifyAdapter,
  options: ApiOptions,
  settings: CorsSettings,
): Promise<Served> {
  const app = await NestFactory.create(WorkforceKitModule.forRoot(options), platform, {
    logger: false,
    forceCloseConnections: true,
  });
  app.setGlobalPrefix('api');
  app.enableCors(settings);
  await app.listen(0, '127.0.0.1');
  return { url: `${await app.getUrl()}/api`, close: () => app.close() };
}

const HOSTS: readonly Host[] = [
  {
    name: 'Nest on Express, enableCors()',
    cors: 'cors',
    serve: (options, settings) => nestHost(new ExpressAdapter(), options, settings),
  },
  {
    name: 'Nest on Fastify, enableCors()',
    cors: '@fastify/cors',
    serve: (options, settings) =>
      nestHost(new FastifyAdapter({ frameworkErrors: frameworkErrors() }), options, settings),
  },
  {
    name: 'the Express router behind cors()',
    cors: 'cors',
    async serve(options, settings) {
      const app = express().use(cors(settings)).use('/api', createRouter(options));
      const served = await serveOnLoopback(app);
      return { ...served, url: `${served.url}/api` };
    },
  },
  {
    name: 'the Fastify plugin behind @fastify/cors',
    cors: '@fastify/cors',
    async serve(options, settings) {
      const app = Fastify({ forceCloseConnections: true, frameworkErrors: frameworkErrors() });
      await app.register(fastifyCors, settings);
      await app.register(workforceKit, { ...options, prefix: '/api' });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: `${url}/api`, close: () => app.close() };
    },
  },
  {
    name: 'the node:http handler behind cors()',
    cors: 'cors',
    async serve(options, settings) {
      const api = createRequestHandler(options);
      const allowCors = cors(settings);
      return serveOnLoopback((req, res) => allowCors(req, res, () => api(req, res)));
    },
  },
  {
    name: 'the fetch handler in Hono behind hono/cors',
    cors: 'hono/cors',
    async serve(options, settings) {
      const api = createFetchHandler({
        ...options,
        basePath: '/api',
        nodeRequest: (_request, env: HttpBindings) => env.incoming,
      });
      const app = new Hono<{ Bindings: HttpBindings }>();
      app.use(
        '/api/*',
        honoCors({
          origin: settings.origin,
          allowMethods: settings.methods,
          exposeHeaders: settings.exposedHeaders,
        }),
      );
      app.use(async (c, next) => (await api(c.req.raw, c.env)) ?? next());
      const served = await serveOnLoopback(getRequestListener(app.fetch));
      return { ...served, url: `${served.url}/api` };
    },
  },
];

/** What the page's fetch gave: the answer's status, a header the host exposes, and its body. */
type Fetched =
  | { readonly status: number; readonly requestId: string | null; readonly body: unknown }
  | { readonly failed: string };

/** Calls `url` with fetch from the page, as the web app's own script does. */
function fetchFromPage(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<Fetched> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const requestId = response.headers.get('x-request-id');
        return { status: response.status, requestId, body: await response.json() };
      } catch (error) {
        return { failed: String(error) };
      }
    },
    { url, init },
  );
}

describe('a page on another origin, in headless Chromium', () => {
  const world = aWorld();
  let browser: Browser;
  let front: Served;
  let elsewhere: Served;
  let token: string;

  beforeAll(async () => {
    // Two web apps: the one the API's CORS names, and another.
    const page = (_req: unknown, res: ServerResponse) =>
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<!doctype html><title>front</title>');
    [front, elsewhere, browser, token] = await Promise.all([
      serveOnLoopback(page),
      serveOnLoopback(page),
      launchChromium(),
      tokenFor([world.restaurant.guid]),
    ]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await front?.close();
    await elsewhere?.close();
  });

  it.each(HOSTS)('calls the API through $name', async (host) => {
    const served = await host.serve(testApiOptions(world.seed), {
      origin: front.url,
      methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
      exposedHeaders: ['X-Request-Id'],
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(front.url);
      const headers = {
        Authorization: `Bearer ${token}`,
        [RESTAURANT_HEADER]: world.restaurant.guid,
      };

      const found = await fetchFromPage(
        page,
        `${served.url}/restaurants/v1/restaurants/${world.restaurant.guid}`,
        { headers },
      );
      expect(found).toMatchObject({ status: 200, body: { guid: world.restaurant.guid } });
      expect('requestId' in found && found.requestId).toBeTruthy();

      const unarchived = await fetchFromPage(
        page,
        `${served.url}/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`,
        { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/json' }, body: '{}' },
      );
      expect(unarchived).toMatchObject({ status: 200, body: { deleted: false } });

      // A refusal reaches the page too, with its problem.
      const refused = await fetchFromPage(
        page,
        `${served.url}/restaurants/v1/restaurants/${world.restaurant.guid}`,
        { headers: { [RESTAURANT_HEADER]: world.restaurant.guid } },
      );
      expect(refused).toMatchObject({ status: 401, body: { code: 'INVALID_TOKEN' } });

      // Another origin's page gets no answer it may read.
      const other = await context.newPage();
      await other.goto(elsewhere.url);
      const blocked = await fetchFromPage(
        other,
        `${served.url}/restaurants/v1/restaurants/${world.restaurant.guid}`,
        { headers },
      );
      expect(blocked).toEqual({ failed: 'TypeError: Failed to fetch' });
    } finally {
      await context.close();
      await served.close();
    }
  });
});

/** The first host of each CORS library: Nest's two platforms, and Hono. */
const ONE_PER_LIBRARY = HOSTS.filter(
  (host, i) => HOSTS.findIndex((other) => other.cors === host.cors) === i,
);

describe("the contract kit's stateless group, through the host's CORS", () => {
  it.each(ONE_PER_LIBRARY)('passes through $name ($cors)', async (host) => {
    const json: unknown = JSON.parse(await readFile(DEMO_SEED_FILE, 'utf8'));
    const seed = parseSeed(json, new Date());
    if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));
    const served = await host.serve(testApiOptions(seed.value, { rateLimit: false }), {
      origin: 'https://backoffice.example.com',
      methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
      exposedHeaders: ['X-Request-Id'],
    });
    try {
      // Wrong methods and unknown paths among them: none is OPTIONS, the CORS layer's to answer.
      const report = await checkApiContract({
        target: served.url,
        seed: json as Record<string, unknown>,
        auth: { hs256Secret: TEST_SECRET },
        only: ['stateless'],
        runs: 30,
        rngSeed: 1,
      });
      expect(report.ok, formatReport(report)).toBe(true);
    } finally {
      await served.close();
    }
  });
});
