// The Fastify app a good engineer would write by hand for the three routes of the bench, the one
// the Fastify adapter must beat: Fastify's own fast paths (JSON schemas of params, headers and
// query, compiled by its ajv; a 200 response schema per route, so fast-json-stringify
// serialises), the spec's schemas reused (inlined; the serialiser's copy without the
// `if`/`then`/`else` that only validates), and jose's HS256 verification per request in an
// `onRequest` hook, with the operation's scope and the context restaurant checked.
import Fastify from 'fastify';
import { acceptEmptyJson } from './bare.js';
import { BODIES, checkBearer, type Listening, ROUTES, SCOPE } from './common.js';
import { parameterSchema, specSchema } from './spec-schemas.js';

const CONTEXT = 'platform-restaurant-external-id';

const headers = {
  type: 'object',
  properties: {
    authorization: { type: 'string' },
    [CONTEXT]: parameterSchema('RestaurantContext'),
    'x-request-id': parameterSchema('RequestId'),
  },
  required: ['authorization', CONTEXT],
};
const SERIALISED = ['if', 'then', 'else'];
const restaurantResponse = { 200: specSchema('RestaurantInfo', SERIALISED) };
const employeeResponse = { 200: specSchema('Employee', SERIALISED) };

export async function fastifyReference(): Promise<Listening> {
  const fastify = Fastify();
  acceptEmptyJson(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    const { scope } = request.routeOptions.config as { scope?: string };
    if (scope === undefined) return; // not a route of the API: Fastify's 404
    const context = request.headers[CONTEXT];
    const status = await checkBearer(
      request.headers.authorization,
      typeof context === 'string' ? context : undefined,
      scope,
    );
    if (status !== 200) {
      return reply.code(status).type('application/problem+json').send({ status });
    }
  });
  fastify.route({
    method: 'GET',
    url: ROUTES.getRestaurant,
    config: { scope: SCOPE.getRestaurant },
    schema: {
      params: {
        type: 'object',
        properties: { restaurantGUID: parameterSchema('RestaurantGuid') },
        required: ['restaurantGUID'],
      },
      querystring: {
        type: 'object',
        properties: { includeArchived: parameterSchema('IncludeArchived') },
        additionalProperties: false,
      },
      headers,
      response: restaurantResponse,
    },
    handler: async () => BODIES.restaurant,
  });
  fastify.route({
    method: 'DELETE',
    url: ROUTES.archiveEmployee,
    config: { scope: SCOPE.archiveEmployee },
    schema: {
      params: {
        type: 'object',
        properties: { employeeId: parameterSchema('EmployeeId') },
        required: ['employeeId'],
      },
      headers,
      response: employeeResponse,
    },
    handler: async () => BODIES.archived,
  });
  fastify.route({
    method: 'PUT',
    url: ROUTES.unarchiveEmployee,
    config: { scope: SCOPE.unarchiveEmployee },
    schema: {
      params: {
        type: 'object',
        properties: { employeeId: parameterSchema('EmployeeGuid') },
        required: ['employeeId'],
      },
      headers,
      response: employeeResponse,
    },
    handler: async () => BODIES.live,
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = fastify.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => fastify.close() };
}
