import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { SeedClient } from '@workforce-kit/core';
import express, { type Request, type Response, type Router } from 'express';
import { SignJWT } from 'jose';
import { z } from 'zod';

/** The path of the development token endpoint (CONTRACT.md). */
export const LOGIN_PATH = '/authentication/v1/authentication/login';
/** Lifetime of a development token. */
export const TOKEN_LIFETIME_SECONDS = 3600;

/** What the development login signs with. */
export interface DevLoginOptions {
  readonly clients: readonly SeedClient[];
  readonly secret: Uint8Array;
  readonly issuer: string;
  readonly audience: string | undefined;
}

const platformLogin = z.strictObject({
  clientId: z.string().min(1).max(256),
  clientSecret: z.string().min(1).max(1024),
  userAccessType: z.literal('MACHINE_CLIENT'),
});

const oauthForm = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: z.string().min(1).max(256).optional(),
  client_secret: z.string().min(1).max(1024).optional(),
  scope: z.string().max(1024).optional(),
});

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The client with this id and secret, compared in constant time. */
function authenticate(
  clients: readonly SeedClient[],
  clientId: string,
  secret: string,
): SeedClient | undefined {
  const client = clients.find((candidate) => candidate.clientId === clientId);
  const expected = digest(client?.clientSecret ?? randomUUID());
  return timingSafeEqual(expected, digest(secret)) && client !== undefined ? client : undefined;
}

function problem(res: Response, status: number, code: string, detail: string): void {
  res
    .status(status)
    .type('application/problem+json')
    .json({
      type: `https://workforce-kit.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
      title: detail,
      status,
      detail,
      code,
      requestId: randomUUID(),
    });
}

/** HTTP Basic credentials (RFC 6749 2.3.1), if any. */
function basicCredentials(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(req.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

/**
 * The development token endpoint of the reference server, in the platform's style:
 * `POST {clientId, clientSecret, userAccessType: "MACHINE_CLIENT"}` answers
 * `{token: {tokenType, accessToken, expiresIn, scope}, status: "SUCCESS"}`. It also takes the
 * OAuth 2.0 client-credentials form (RFC 6749), so that the API reference page can log in. The
 * clients, their secrets, scopes and restaurants are the seed's. For development only: enable it
 * with `AUTH_MODE=dev`.
 */
export function createDevLogin(options: DevLoginOptions): Router {
  const sign = (client: SeedClient) =>
    new SignJWT({
      scope: client.scopes.join(' '),
      restaurants: client.restaurants.includes('*') ? '*' : [...client.restaurants],
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(client.clientId)
      .setIssuer(options.issuer)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
      .setAudience(options.audience ?? [])
      .sign(options.secret);

  const router = express.Router();
  router.post(
    LOGIN_PATH,
    express.json({ limit: 4096 }),
    express.urlencoded({ limit: 4096, extended: false }),
    async (req, res) => {
      res.set('Cache-Control', 'no-store');
      if (req.is('application/x-www-form-urlencoded')) {
        const form = oauthForm.safeParse(req.body);
        if (!form.success) {
          res.status(400).json({
            error: 'unsupported_grant_type',
            error_description: 'Use grant_type=client_credentials',
          });
          return;
        }
        const basic = basicCredentials(req);
        const id = basic?.id ?? form.data.client_id ?? '';
        const client = authenticate(
          options.clients,
          id,
          basic?.secret ?? form.data.client_secret ?? '',
        );
        if (client === undefined) {
          res
            .status(401)
            .set('WWW-Authenticate', 'Basic realm="workforce-kit"')
            .json({ error: 'invalid_client' });
          return;
        }
        res.json({
          access_token: await sign(client),
          token_type: 'Bearer',
          expires_in: TOKEN_LIFETIME_SECONDS,
          scope: client.scopes.join(' '),
        });
        return;
      }
      const login = platformLogin.safeParse(req.body);
      if (!login.success) {
        problem(
          res,
          400,
          'VALIDATION_FAILED',
          'Send {clientId, clientSecret, userAccessType: "MACHINE_CLIENT"} as JSON.',
        );
        return;
      }
      const client = authenticate(options.clients, login.data.clientId, login.data.clientSecret);
      if (client === undefined) {
        problem(res, 401, 'INVALID_CLIENT', 'The client id or secret is wrong.');
        return;
      }
      res.json({
        token: {
          tokenType: 'Bearer',
          accessToken: await sign(client),
          expiresIn: TOKEN_LIFETIME_SECONDS,
          scope: client.scopes.join(' '),
        },
        status: 'SUCCESS',
      });
    },
  );
  router.all(LOGIN_PATH, (_req, res) => {
    res.set('Allow', 'POST');
    problem(res, 405, 'METHOD_NOT_ALLOWED', 'Use POST.');
  });
  return router;
}
