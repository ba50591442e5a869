import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RunningServer, startServer } from '../src/index.js';
import { FRAMEWORK_SETTINGS } from './support/frameworks.js';

let server: RunningServer;
let url: string;

/** A GET of a raw path (fetch would normalize `..` away). */
async function get(path: string): Promise<{ status: number; type: string; body: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(`${url}/`, { path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(FRAMEWORK_SETTINGS)('on $name', ({ env: framework }) => {
  beforeAll(async () => {
    server = await startServer(
      loadConfig({
        PORT: '0',
        STORE: 'memory',
        ...framework,
        AUTH_HS256_SECRET: 'a-test-secret-for-the-docs-0123456789abcdef',
      })._unsafeUnwrap(),
      pino({ level: 'silent' }),
    );
    url = server.url;
  });
  afterAll(() => server.close());

  describe('the API reference page', () => {
    it('serves the page and every asset it names, with their media types', async () => {
      const page = await get('/docs');
      expect(page.status).toBe(200);
      const assets = [...page.body.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets).toHaveLength(4);
      for (const asset of assets) {
        const res = await get(asset ?? '');
        expect(res.status, asset).toBe(200);
        expect(res.type, asset).toMatch(/^(text\/css|application\/javascript|image\/png)/);
      }
    });

    it.each([
      '/docs/assets/package.json',
      '/docs/assets/index.html',
      '/docs/assets/swagger-initializer.js',
      '/docs/assets/missing.js',
      '/docs/assets/../package.json',
      '/docs/assets/%2e%2e/package.json',
      '/docs/assets/..%2f..%2fpackage.json',
      '/docs/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/docs/assets/',
    ])('answers 404, showing no file path, to %s', async (path) => {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.body).not.toMatch(/node_modules|swagger-ui-dist|\/work\/|Error/);
    });

    it('does not keep a pasted token in the browser (persistAuthorization off)', async () => {
      const init = await get('/docs/init.js');
      expect(init.body).toMatch(/persistAuthorization: false/);
    });
  });

  describe('a path that does not percent-decode', () => {
    it('is 400 VALIDATION_FAILED about the path, not about a body', async () => {
      const res = await get('/docs/assets/%E0%A4%A');
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ path: '/path', message: 'is not valid percent-encoding' }],
      });
    });
  });
});
