import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
import express from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';

// Your app's registry: the API keeps its metrics in it, beside the process's own.
const registry = new Registry();
collectDefaultMetrics({ register: registry });

const app = express();
app.get('/metrics', async (_req, res) => {
  res.type(registry.contentType).send(await registry.metrics());
});
app.use(
  '/api',
  createRouter({
    store: createMemoryStore(),
    auth: createJwtVerifier({
      jwksUrl: 'https://id.example.com/.well-known/jwks.json',
      issuer: 'https://id.example.com/',
      audience: 'workforce-api',
    }),
    metrics: { registry },
    // Spans through @opentelemetry/api: a no-op until your app registers an OpenTelemetry SDK.
    tracing: true,
  }),
);
app.listen(3000);
