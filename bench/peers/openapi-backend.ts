// openapi-backend on node:http, as its documentation sets it up: routing and ajv validation of
// params, headers, query and body from the contract (openapi/openapi.yaml), its security handler
// for the spec's `oauth2` scheme verifying the bearer with jose per request (with the operation's
// scope and the context restaurant), and a handler per operation answering its body.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type Context, OpenAPIBackend } from 'openapi-backend';
import { BODIES, checkBearer, JSON_TYPE, type Listening, listen, SCOPE } from './common.js';
import { specDocument } from './spec-schemas.js';

type Answer = (context: Context, req: IncomingMessage, res: ServerResponse) => void;

function send(res: ServerResponse, status: number, body: unknown, type = JSON_TYPE): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const answer =
  (body: unknown): Answer =>
  (_context, _req, res) =>
    send(res, 200, body);

/** The body of a request that has one, read in full; none otherwise. */
async function bodyOf(req: IncomingMessage): Promise<unknown> {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
    return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

export async function openapiBackend(): Promise<Listening> {
  const api = new OpenAPIBackend({
    definition: specDocument() as never,
    strict: true,
    // Its check of the document knows OpenAPI 3.0 only, and refuses this 3.1 one; `quick` skips
    // that check (and compiles each operation's validators on its first request).
    quick: true,
    // Its ajv knows no `uuid` format; the spec's GUID schemas carry a pattern that checks the form.
    ajvOpts: { formats: { uuid: true } },
    handlers: {
      getRestaurant: answer(BODIES.restaurant),
      archiveEmployee: answer(BODIES.archived),
      unarchiveEmployee: answer(BODIES.live),
      validationFail: (context: Context, _req: IncomingMessage, res: ServerResponse) =>
        send(
          res,
          400,
          { status: 400, errors: context.validation.errors },
          'application/problem+json',
        ),
      notFound: (_context: Context, _req: IncomingMessage, res: ServerResponse) =>
        send(res, 404, { status: 404 }, 'application/problem+json'),
      methodNotAllowed: (_context: Context, _req: IncomingMessage, res: ServerResponse) =>
        send(res, 405, { status: 405 }, 'application/problem+json'),
      unauthorizedHandler: (context: Context, _req: IncomingMessage, res: ServerResponse) => {
        const status = (context.security.oauth2 as { status?: number } | undefined)?.status ?? 401;
        send(res, status, { status }, 'application/problem+json');
      },
    },
  });
  api.registerSecurityHandler('oauth2', async (context: Context) => {
    const operationId = context.operation.operationId as keyof typeof SCOPE;
    const header = context.request.headers['platform-restaurant-external-id'];
    const status = await checkBearer(
      context.request.headers.authorization as string | undefined,
      typeof header === 'string' ? header : undefined,
      SCOPE[operationId],
    );
    return status === 200 ? true : { error: true, status };
  });
  await api.init();
  return listen(
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      bodyOf(req)
        .then((body) =>
          api.handleRequest(
            {
              method: req.method ?? 'GET',
              path: url.pathname,
              query: Object.fromEntries(url.searchParams),
              headers: req.headers as Record<string, string | string[]>,
              body,
            },
            req,
            res,
          ),
        )
        .catch((error: unknown) => {
          if (!res.headersSent) send(res, 500, { status: 500 }, 'application/problem+json');
          console.error(error);
        });
    }),
  );
}
