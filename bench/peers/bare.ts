// The bare routes of the HTTP bench: each framework answering the bodies of the three routes (the
// restaurant, an archived employee, an unarchived one), no auth, no validation. Each serialises
// its body per request, as any server answering a record does. Bare Express is the bench's
// baseline; node:http bare is the practical limit of a Node server; each is the p99 its
// framework's adapter is held to.
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';
import { BODIES, JSON_TYPE, type Listening, listen, ROUTES } from './common.js';

/** Express 5: a route per operation, `res.json`. */
export function expressBare(): Promise<Listening> {
  const app = express();
  app.get(ROUTES.getRestaurant, (_req, res) => {
    res.json(BODIES.restaurant);
  });
  app.delete(ROUTES.archiveEmployee, (_req, res) => {
    res.json(BODIES.archived);
  });
  app.put(ROUTES.unarchiveEmployee, (_req, res) => {
    res.json(BODIES.live);
  });
  return listen(createServer(app));
}

const UNARCHIVE = '/unarchive';
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';

/** node:http alone: the method and the path's shape pick the body; the same Content-Type. */
export function nodeBare(): Promise<Listening> {
  return listen(
    createServer((req, res) => {
      const url = req.url ?? '/';
      const body =
        req.method === 'GET' && url.startsWith(RESTAURANTS)
          ? BODIES.restaurant
          : req.method === 'DELETE' && url.startsWith(EMPLOYEES)
            ? BODIES.archived
            : req.method === 'PUT' && url.startsWith(EMPLOYEES) && url.endsWith(UNARCHIVE)
              ? BODIES.live
              : undefined;
      if (body === undefined) {
        res.writeHead(404).end();
        return;
      }
      const text = JSON.stringify(body);
      res.writeHead(200, {
        'Content-Type': JSON_TYPE,
        'Content-Length': Buffer.byteLength(text),
      });
      res.end(text);
    }),
  );
}

/**
 * Hono 4 on @hono/node-server: a route per operation, `c.json`. The host of the fetch adapter's
 * row (wk-hono), as bare Express is the Express adapter's.
 */
export function honoBare(): Promise<Listening> {
  const app = new Hono();
  app.get(ROUTES.getRestaurant, (c) => c.json(BODIES.restaurant));
  app.delete(ROUTES.archiveEmployee, (c) => c.json(BODIES.archived));
  app.put(ROUTES.unarchiveEmployee, (c) => c.json(BODIES.live));
  return listen(createServer(getRequestListener(app.fetch)));
}

/** Fastify 5: a route per operation returning the body (no schemas). */
export async function fastifyBare(): Promise<Listening> {
  const fastify = Fastify();
  acceptEmptyJson(fastify);
  fastify.get(ROUTES.getRestaurant, async () => BODIES.restaurant);
  fastify.delete(ROUTES.archiveEmployee, async () => BODIES.archived);
  fastify.put(ROUTES.unarchiveEmployee, async () => BODIES.live);
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = fastify.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => fastify.close() };
}

/**
 * Fastify's JSON parser, but an empty body is no body: an unarchive carries Content-Type:
 * application/json and nothing else (Fastify's own parser refuses it, 400).
 */
export function acceptEmptyJson(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, body === '' ? undefined : JSON.parse(body as string));
      } catch (error) {
        done(Object.assign(error as Error, { statusCode: 400 }), undefined);
      }
    },
  );
}
