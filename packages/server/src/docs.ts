import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openapiDocument } from '@workforce-kit/types';
import express, { type Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { stringify } from 'yaml';

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
  const document = structuredClone(openapiDocument) as unknown as Record<string, unknown> & {
    components: {
      securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } };
    };
  };
  document.servers = [{ url: baseUrl, description: 'This server.' }];
  const flow = document.components.securitySchemes.oauth2.flows.clientCredentials;
  flow.tokenUrl = new URL(new URL(flow.tokenUrl).pathname, baseUrl).href;
  return document;
}

/**
 * The interactive API reference at `/docs` (Swagger UI, its three assets read from
 * swagger-ui-dist once, at start: it works with no internet), the spec at `/openapi.yaml` and
 * `/openapi.json`. Any other path under `/docs` is left to the host (a 404).
 */
export function createDocs(baseUrl: string): Router {
  const document = servedDocument(baseUrl);
  const yamlText = stringify(document);
  const jsonText = JSON.stringify(document);
  const folder = getAbsoluteFSPath();
  const assets = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(join(folder, name)) },
    ]),
  );
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.get('/docs/assets/:name', (req, res, next) => {
    const asset = assets.get(req.params.name);
    if (asset === undefined) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(asset.type).send(asset.body);
  });
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(yamlText);
  });
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(jsonText);
  });
  return router;
}
