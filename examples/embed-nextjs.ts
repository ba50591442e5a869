// app/api/[...path]/route.ts: the API under /api of a Next.js app (App Router).
import { createMemoryStore } from '@workforce-kit/core';
import { createFetchHandler, createJwtVerifier } from '@workforce-kit/fetch-adapter';

// Made once per server instance, when the route's module is first loaded.
const api = createFetchHandler({
  store: createMemoryStore(), // in production, your store: a PostgreSQL one, for instance
  auth: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'workforce-api',
  }),
  basePath: '/api', // /api/labor/v1/… is the API's /labor/v1/…
  // Behind a proxy that sets X-Forwarded-For itself (Vercel's does): its first address.
  getClientAddress: (request) => request.headers.get('x-forwarded-for')?.split(',')[0]?.trim(),
});

async function handle(request: Request): Promise<Response> {
  return (await api(request)) ?? Response.json({ error: 'Not Found' }, { status: 404 });
}

export { handle as DELETE, handle as GET, handle as HEAD, handle as PUT };
// The API's pipeline runs on Node's runtime (node:crypto, node:zlib), not the Edge runtime.
export const runtime = 'nodejs';
