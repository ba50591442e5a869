import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { openapiDocument } from '@workforce-kit/types';
import { stringify } from 'yaml';
import type { HostAnswer, HostRoute } from './host-routes.js';

/** The files of swagger-ui-dist the page uses, with their media types; nothing else is served. */
const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>workforce-kit API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.yaml',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // A pasted token is not kept in the browser's localStorage.
  persistAuthorization: false,
  validatorUrl: null,
});
`;

/**
 * The spec as this server serves it: as written, but for the server and token URLs, which name
 * this server (so that the reference page's "Try it out" and "Authorize" reach it).
 */
export function servedDocument(baseUrl: string): Record<string, unknown> {
  const document: Record<string, unknown> = {
    ...structuredClone(openapiDocument),
    servers: [{ url: baseUrl, description: 'This server.' }],
  };
  const flow = objectAt(document, 'components.securitySchemes.oauth2.flows.clientCredentials');
  if (typeof flow.tokenUrl !== 'string') throw new Error('the spec names no token URL');
  flow.tokenUrl = new URL(new URL(flow.tokenUrl).pathname, baseUrl).href;
  return document;
}

/** The object at a dotted path of a JSON document; a spec without it is this package's bug. */
function objectAt(document: Record<string, unknown>, path: string): Record<string, unknown> {
  let at: unknown = document;
  for (const key of path.split('.')) at = isObject(at) ? at[key] : undefined;
  if (!isObject(at)) throw new Error(`the spec has no object at ${path}`);
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const NOT_FOUND: HostAnswer = {
  problem: { code: 'NOT_FOUND', detail: 'Nothing is served at this path.' },
};

/**
 * The interactive API reference at `/docs` (Swagger UI, its three assets read from
 * swagger-ui-dist once, at start: it works with no internet), the spec at `/openapi.yaml` and
 * `/openapi.json`, naming `baseUrl()` (the server's address, known once it listens). Any other
 * asset is a 404.
 */
export function docsRoutes(baseUrl: () => string): HostRoute[] {
  // swagger-ui-dist's folder, found without loading the package: its index would load the whole
  // bundle into this process, for files that are only served.
  const folder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, HostAnswer>(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      {
        status: 200,
        type,
        body: readFileSync(join(folder, name)),
        headers: { 'Cache-Control': 'public, max-age=3600' },
      },
    ]),
  );
  let served: { readonly yaml: HostAnswer; readonly json: HostAnswer } | undefined;
  const spec = () => {
    if (served === undefined) {
      const document = servedDocument(baseUrl());
      served = {
        yaml: { status: 200, type: 'application/yaml', body: stringify(document) },
        json: { status: 200, type: 'application/json', body: JSON.stringify(document) },
      };
    }
    return served;
  };
  return [
    {
      method: 'GET',
      path: '/docs',
      handle: () => ({ status: 200, type: 'text/html; charset=utf-8', body: PAGE }),
    },
    {
      method: 'GET',
      path: '/docs/init.js',
      handle: () => ({ status: 200, type: 'application/javascript; charset=utf-8', body: INIT }),
    },
    {
      method: 'GET',
      path: '/docs/assets/:name',
      handle: ({ param }) => (param === undefined ? undefined : assets.get(param)) ?? NOT_FOUND,
    },
    { method: 'GET', path: '/openapi.yaml', handle: () => spec().yaml },
    { method: 'GET', path: '/openapi.json', handle: () => spec().json },
  ];
}
