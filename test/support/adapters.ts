// The web-framework adapters every HTTP-level test runs against, kysely style: one suite, looped
// over this table. Each serves the API of the options at the root of a new app of its framework:
// over real HTTP on a free port of 127.0.0.1 (`serve`), or as a `node:http` request listener for
// a caller that serves it itself, as the contract kit does (`handler`). The fetch adapter is
// served by Hono on @hono/node-server, mounted as docs/embedding.md shows, on the web Request
// alone (its headers, its body stream; the address through getClientAddress): the path every
// host takes. With `nodeRequest` (the guide's advice on @hono/node-server), the head and body are
// Node's request's, as the node adapter reads them: the reference server's HTTP_FRAMEWORK=hono,
// which its own suites run. The NestJS module is served on each of Nest's platforms, Express and
// Fastify (the latter with the Fastify adapter's frameworkErrors, as its page says), in an app of
// that module alone.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createRouter } from '@workforce-kit/express-adapter';
import { frameworkErrors, workforceKit } from '@workforce-kit/fastify-adapter';
import { createFetchHandler } from '@workforce-kit/fetch-adapter';
import type { ApiOptions } from '@workforce-kit/http';
import { WorkforceKitModule } from '@workforce-kit/nestjs';
import { createRequestHandler } from '@workforce-kit/node-adapter';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';

/** An app serving the API, listening. */
export interface Served {
  /** `http://127.0.0.1:<port>`, for `request(url)`. */
  readonly url: string;
  /** Stops listening and ends the app's connections. */
  close(): Promise<void>;
}

export interface Adapter {
  readonly name: 'express' | 'fastify' | 'node' | 'fetch' | 'nestjs-express' | 'nestjs-fastify';
  /** The API of `options` at the root of a new app, ready, as a request listener. */
  handler(options: ApiOptions): Promise<RequestListener>;
  /** Serves the API of `options` at the root of a new app, on a free port of 127.0.0.1. */
  serve(options: ApiOptions): Promise<Served>;
}

/** Serves `handler` on a free port of 127.0.0.1, as a new `node:http` server. */
export async function serveOnLoopback(handler: RequestListener): Promise<Served> {
  const server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve).once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

const expressAdapter: Adapter = {
  name: 'express',
  async handler(options) {
    const router = createRouter(options);
    await router.ready;
    return express().use(router);
  },
  async serve(options) {
    return serveOnLoopback(await this.handler(options));
  },
};

const fastifyAdapter: Adapter = {
  name: 'fastify',
  async handler(options) {
    // Fastify hands its request listener to the server factory (its documented way to serve on a
    // server it does not make); the server made here is never started.
    let listener: RequestListener | undefined;
    const app = Fastify({
      frameworkErrors: frameworkErrors(),
      serverFactory: (handler) => {
        listener = handler;
        return createServer(handler);
      },
    });
    await app.register(workforceKit, options);
    await app.ready();
    if (listener === undefined) throw new Error('Fastify did not call its server factory');
    return listener;
  },
  async serve(options) {
    const app = Fastify({ frameworkErrors: frameworkErrors(), forceCloseConnections: true });
    await app.register(workforceKit, options);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
};

const nodeAdapter: Adapter = {
  name: 'node',
  async handler(options) {
    const handler = createRequestHandler(options);
    // A host whose own fallback is a plain 404, as Express's and Fastify's are.
    return (req, res) =>
      handler(req, res, () => {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('Not Found');
      });
  },
  async serve(options) {
    return serveOnLoopback(await this.handler(options));
  },
};

const fetchAdapter: Adapter = {
  name: 'fetch',
  async handler(options) {
    const api = createFetchHandler({
      ...options,
      getClientAddress: (_request, env: HttpBindings) => env.incoming.socket.remoteAddress,
    });
    // The API first; Hono's own 404 (plain text) for the paths outside it, as a host's fallback.
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.use(async (c, next) => (await api(c.req.raw, c.env)) ?? next());
    return getRequestListener(app.fetch);
  },
  async serve(options) {
    return serveOnLoopback(await this.handler(options));
  },
};

/** A Nest app of the module alone, initialized, on the platform given. */
async function nestApp(options: ApiOptions, platform: ExpressAdapter | FastifyAdapter) {
  const app = await NestFactory.create(WorkforceKitModule.forRoot(options), platform, {
    logger: false,
    forceCloseConnections: true,
  });
  await app.init();
  return app;
}

/** A Nest app of the module alone, listening on a port of loopback, on the platform given. */
async function servedNestApp(options: ApiOptions, platform: ExpressAdapter | FastifyAdapter) {
  const app = await nestApp(options, platform);
  await app.listen(0, '127.0.0.1');
  return { url: await app.getUrl(), close: () => app.close() };
}

const nestExpressAdapter: Adapter = {
  name: 'nestjs-express',
  async handler(options) {
    const platform = new ExpressAdapter();
    await nestApp(options, platform);
    return platform.getInstance();
  },
  serve: (options) => servedNestApp(options, new ExpressAdapter()),
};

const nestFastifyAdapter: Adapter = {
  name: 'nestjs-fastify',
  async handler(options) {
    // As for Fastify alone: Nest's Fastify serves on the server its factory makes, never started.
    let listener: RequestListener | undefined;
    const platform = new FastifyAdapter({
      frameworkErrors: frameworkErrors(),
      serverFactory: (handler: RequestListener) => {
        listener = handler;
        return createServer(handler);
      },
    });
    await nestApp(options, platform);
    await platform.getInstance().ready();
    if (listener === undefined) throw new Error('Fastify did not call its server factory');
    return listener;
  },
  serve: (options) =>
    servedNestApp(options, new FastifyAdapter({ frameworkErrors: frameworkErrors() })),
};

export const ADAPTERS: readonly Adapter[] = [
  expressAdapter,
  fastifyAdapter,
  nodeAdapter,
  fetchAdapter,
  nestExpressAdapter,
  nestFastifyAdapter,
];
