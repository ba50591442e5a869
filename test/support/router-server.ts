// Test support for the cross-package tests: the router of @workforce-kit/express-adapter in an
// Express app, over a store a property can swap between runs.
import { createHmac } from 'node:crypto';
import { type ApiStore, createRouter, type RouterOptions } from '@workforce-kit/express-adapter';
import express from 'express';

/**
 * A store whose every call goes to the store `current()` returns at that moment. The router keeps
 * the repositories it is given: with this, one app (one compiled spec) serves every run of a
 * property, each on a fresh store.
 */
export function delegatingStore(current: () => ApiStore): ApiStore {
  return {
    employees: {
      find: (restaurant, id) => current().employees.find(restaurant, id),
      write: (change) => current().employees.write(change),
    },
    shifts: {
      find: (restaurant, id) => current().shifts.find(restaurant, id),
      write: (change) => current().shifts.write(change),
    },
    restaurants: { findByGuid: (guid) => current().restaurants.findByGuid(guid) },
  };
}

/** An Express app serving `createRouter(options)`, once its spec is compiled. */
export async function routerApp(options: RouterOptions): Promise<express.Express> {
  const router = createRouter(options);
  await router.ready;
  const app = express();
  app.use(router);
  return app;
}

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * A JWT over `claims`, signed HS256 (or `alg`) with `secret`; `none` has no signature. Written
 * out rather than made with jose so that tests can also make the tokens jose refuses to make.
 */
export function signJwt(
  claims: Readonly<Record<string, unknown>>,
  secret: string,
  alg: 'HS256' | 'HS512' | 'none' = 'HS256',
): string {
  const input = `${base64url(JSON.stringify({ alg, typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  if (alg === 'none') return `${input}.`;
  const hash = alg === 'HS256' ? 'sha256' : 'sha512';
  return `${input}.${createHmac(hash, secret).update(input).digest('base64url')}`;
}
