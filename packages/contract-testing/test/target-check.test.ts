// The kit refuses a target it cannot use before it reads the spec or sends a request, with an
// error that names what it takes; given a Fastify instance (not a request listener), the error says
// to pass `app.routing` after `await app.ready()`, or a factory that returns it; so does the error
// when a factory makes one.
import { checkApiContract } from '@workforce-kit/contract-testing';
import { describeApiContract } from '@workforce-kit/contract-testing/vitest';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { assertContractTarget, type ContractTarget } from '../src/target.js';
import { AUTH, demoSeedJson } from './support/router-target.js';

const ACCEPTED =
  'target must be an http(s) base URL (a string or URL), a request listener (an Express app, a ' +
  'node:http listener), { factory } (a function that makes a freshly seeded app) or { handler, reset }; ';

const optionsFor = (target: unknown) => ({
  target: target as ContractTarget,
  seed: demoSeedJson,
  auth: AUTH,
});

describe('a Fastify instance as the target', () => {
  const app = Fastify();
  const advice =
    'got a Fastify instance, which is not a request listener. Once `await app.ready()` has run, ' +
    'its listener is `app.routing`: pass `{ factory: async () => { const app = await buildApp(); ' +
    'await app.ready(); return app.routing; } }`';

  it('is refused by checkApiContract, which says to pass app.routing or a factory', async () => {
    await expect(checkApiContract(optionsFor(app))).rejects.toThrow(ACCEPTED + advice);
  });

  it('is refused by describeApiContract where the suite is declared', () => {
    expect(() => describeApiContract('a Fastify app', optionsFor(app))).toThrow(ACCEPTED + advice);
  });

  afterAll(() => app.close());

  it('is refused as the handler of { handler, reset }, with the same advice', async () => {
    await expect(checkApiContract(optionsFor({ handler: app, reset: () => {} }))).rejects.toThrow(
      `${ACCEPTED}got { handler, reset } whose handler is ${advice.replace(/^got /, '')}`,
    );
  });

  it("is refused when a target's factory makes it, before any request", async () => {
    await expect(checkApiContract(optionsFor({ factory: async () => app }))).rejects.toThrow(
      `target's factory must make a request listener; it made ${advice.replace(/^got /, '')}`,
    );
  });
});

describe('a value that is no target', () => {
  it.each([
    [undefined, 'got undefined'],
    [42, 'got a number (42)'],
    ['127.0.0.1:8080', 'got "127.0.0.1:8080", which is not an http(s) URL'],
    ['localhost:8080', 'got "localhost:8080", which is not an http(s) URL'],
    [new URL('file:///srv/api'), 'got "file:///srv/api", which is not an http(s) URL'],
    [
      'http://127.0.0.1:8080/api?tenant=1',
      'got "http://127.0.0.1:8080/api?tenant=1", which has a query or a fragment: the kit adds paths to it',
    ],
    [{}, 'got an empty object'],
    [{ app: () => {}, port: 3000 }, 'got an object with app, port'],
    [new Map(), 'got an instance of Map'],
    [{ factory: 'app.js' }, 'got { factory } whose factory is a string (app.js), not a function'],
    [{ handler: {} }, 'got { handler, reset } whose handler is an empty object'],
    [{ handler: () => {} }, 'got { handler, reset } whose reset is undefined, not a function'],
  ])('%o is refused: %s', async (target, problem) => {
    await expect(checkApiContract(optionsFor(target))).rejects.toThrow(ACCEPTED + problem);
    expect(() => describeApiContract('junk', optionsFor(target))).toThrow(ACCEPTED + problem);
  });

  it.each([
    'http://127.0.0.1:8080',
    'https://api.example.com/tenant',
    new URL('http://[::1]:8080/api'),
    () => {},
    { factory: () => () => {} },
    { handler: () => {}, reset: () => {} },
  ])('%o is a target', (target) => {
    expect(() => assertContractTarget(target)).not.toThrow();
  });
});
