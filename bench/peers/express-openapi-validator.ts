// Express 5 with express-openapi-validator, as its documentation sets it up: express.json, then
// the validator's middleware built from the contract (params, headers, query and body validated;
// responses not, as in production), its security handler for the spec's `oauth2` scheme verifying
// the bearer with jose per request (with the operation's scope and the context restaurant), a
// route per operation answering its body, and an error handler.
import { createServer } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { BODIES, checkBearer, type Listening, listen, ROUTES } from './common.js';
import { specDocument } from './spec-schemas.js';

type ApiSpec = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

export function expressOpenapiValidator(): Promise<Listening> {
  const app = express();
  app.use(express.json());
  app.use(
    OpenApiValidator.middleware({
      apiSpec: specDocument() as unknown as ApiSpec,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: {
        handlers: {
          oauth2: async (req, scopes) => {
            const [scope = ''] = scopes;
            const status = await checkBearer(
              req.headers.authorization,
              req.get('platform-restaurant-external-id'),
              scope,
            );
            if (status === 200) return true;
            throw Object.assign(new Error('refused'), { status });
          },
        },
      },
    }),
  );
  app.get(ROUTES.getRestaurant, (_req, res) => {
    res.json(BODIES.restaurant);
  });
  app.delete(ROUTES.archiveEmployee, (_req, res) => {
    res.json(BODIES.archived);
  });
  app.put(ROUTES.unarchiveEmployee, (_req, res) => {
    res.json(BODIES.live);
  });
  app.use((error: { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    const status = error.status ?? 500;
    res.status(status).type('application/problem+json').json({ status });
  });
  return listen(createServer(app));
}
