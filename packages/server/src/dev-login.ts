import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { SeedClient } from '@workforce-kit/core';
import { type ProblemOccurrence, requestIds, sendProblem } from '@workforce-kit/express-adapter';
import express, { type Request, type Response, type Router } from 'express';
import { SignJWT } from 'jose';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';

/** The path of the development token endpoint (docs/contract.md). */
export const LOGIN_PATH = '/authentication/v1/authentication/login';
/** Lifetime of a development token. */
export const TOKEN_LIFETIME_SECONDS = 3600;
/** Wrong logins allowed per 15 minutes, per client id and per client address, before 429. */
export const WRONG_LOGINS_PER_15_MINUTES = { perClient: 10, perAddress: 30 } as const;

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

const PLATFORM_STYLE =
  'Send {"clientId", "clientSecret", "userAccessType": "MACHINE_CLIENT"} with Content-Type: application/json';
const OAUTH_STYLE =
  'or the OAuth 2.0 form grant_type=client_credentials (application/x-www-form-urlencoded)';

/** The media type of a Content-Type header, lower case, without its parameters. */
function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase();
}

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

/** Credentials sent as HTTP Basic (RFC 6749 2.3.1): absent, malformed, or the id and secret. */
function basicCredentials(req: Request): { id: string; secret: string } | 'malformed' | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header);
  if (match?.[1] === undefined) return 'malformed';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return 'malformed';
  }
}

/**
 * A problem of the OAuth 2.0 form, which OAuth clients (the reference page's "Authorize") read
 * by its `error` and `error_description` members (RFC 6749 5.2): problem details that carry them.
 */
function oauthProblem(
  occurrence: ProblemOccurrence,
  error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type',
): ProblemOccurrence {
  return { ...occurrence, extensions: { error, error_description: occurrence.detail } };
}

/**
 * The development token endpoint of the reference server, in the platform's style:
 * `POST {clientId, clientSecret, userAccessType: "MACHINE_CLIENT"}` answers
 * `{token: {tokenType, accessToken, expiresIn, scope}, status: "SUCCESS"}`. It also takes the
 * OAuth 2.0 client-credentials form (RFC 6749), so that the API reference page can log in. The
 * clients, their secrets, scopes and restaurants are the seed's. Every error is problem details,
 * as the API's are (with OAuth's `error` member for the form); wrong logins are throttled per
 * client id and per client address ({@link WRONG_LOGINS_PER_15_MINUTES}). A body the parsers
 * refuse is passed on to the app's error handler (`problemHandler`). For development only: the
 * server enables it with `AUTH_MODE=dev`.
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

  const wrongByClient = new RateLimiterMemory({
    keyPrefix: 'login-client',
    points: WRONG_LOGINS_PER_15_MINUTES.perClient,
    duration: 15 * 60,
  });
  const wrongByAddress = new RateLimiterMemory({
    keyPrefix: 'login-address',
    points: WRONG_LOGINS_PER_15_MINUTES.perAddress,
    duration: 15 * 60,
  });
  const knownClients = new Set(options.clients.map((client) => client.clientId));
  /** The throttles of a login: its address, and its client id when it names a client. */
  const throttles = (req: Request, clientId: string) => {
    const byAddress = { limiter: wrongByAddress, key: req.socket.remoteAddress ?? 'unknown' };
    // Unknown client ids count against the address only: they cannot grow the client table.
    return knownClients.has(clientId)
      ? [byAddress, { limiter: wrongByClient, key: clientId }]
      : [byAddress];
  };

  /** Seconds until this login may be tried again, or 0 when it is not throttled. */
  async function throttled(req: Request, clientId: string): Promise<number> {
    let wait = 0;
    for (const { limiter, key } of throttles(req, clientId)) {
      const state = await limiter.get(key);
      if (state !== null && state.remainingPoints <= 0) {
        wait = Math.max(wait, Math.ceil(state.msBeforeNext / 1000));
      }
    }
    return wait;
  }

  async function countWrongLogin(req: Request, clientId: string): Promise<void> {
    for (const { limiter, key } of throttles(req, clientId)) {
      await limiter.consume(key).catch((refusal: unknown) => {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
      });
    }
  }

  /** Authenticates the credentials, or answers why not; `undefined` when answered. */
  async function clientFor(
    req: Request,
    res: Response,
    clientId: string,
    secret: string,
    oauth: boolean,
  ): Promise<SeedClient | undefined> {
    const wait = await throttled(req, clientId);
    if (wait > 0) {
      sendProblem(res, {
        code: 'RATE_LIMITED',
        detail: `Too many wrong logins; retry in ${wait} s.`,
        headers: { 'Retry-After': String(wait) },
      });
      return undefined;
    }
    const client = authenticate(options.clients, clientId, secret);
    if (client === undefined) {
      await countWrongLogin(req, clientId);
      const problem: ProblemOccurrence = {
        code: 'INVALID_CLIENT',
        detail: 'The client id or secret is wrong.',
        ...(oauth ? { headers: { 'WWW-Authenticate': 'Basic realm="workforce-kit"' } } : {}),
      };
      sendProblem(res, oauth ? oauthProblem(problem, 'invalid_client') : problem);
    }
    return client;
  }

  async function oauthLogin(req: Request, res: Response): Promise<void> {
    const form = oauthForm.safeParse(req.body);
    if (!form.success) {
      const problem: ProblemOccurrence = {
        code: 'VALIDATION_FAILED',
        detail: `The form needs grant_type=client_credentials. ${PLATFORM_STYLE}, ${OAUTH_STYLE}.`,
      };
      sendProblem(res, oauthProblem(problem, 'unsupported_grant_type'));
      return;
    }
    const basic = basicCredentials(req);
    if (basic === 'malformed') {
      const problem: ProblemOccurrence = {
        code: 'VALIDATION_FAILED',
        detail: 'The Authorization header is not HTTP Basic credentials of a client.',
      };
      sendProblem(res, oauthProblem(problem, 'invalid_request'));
      return;
    }
    const id = basic?.id ?? form.data.client_id ?? '';
    const secret = basic?.secret ?? form.data.client_secret ?? '';
    const client = await clientFor(req, res, id, secret, true);
    if (client === undefined) return;
    res.json({
      access_token: await sign(client),
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      scope: client.scopes.join(' '),
    });
  }

  async function platformStyleLogin(req: Request, res: Response): Promise<void> {
    const login = platformLogin.safeParse(req.body);
    if (!login.success) {
      sendProblem(res, {
        code: 'VALIDATION_FAILED',
        detail: `${PLATFORM_STYLE}.`,
        errors: login.error.issues.map((issue) => ({
          path: `/body${issue.path.map((key) => `/${String(key)}`).join('')}`,
          message: issue.message,
        })),
      });
      return;
    }
    const { clientId, clientSecret } = login.data;
    const client = await clientFor(req, res, clientId, clientSecret, false);
    if (client === undefined) return;
    res.json({
      token: {
        tokenType: 'Bearer',
        accessToken: await sign(client),
        expiresIn: TOKEN_LIFETIME_SECONDS,
        scope: client.scopes.join(' '),
      },
      status: 'SUCCESS',
    });
  }

  const router = express.Router();
  router.post(
    LOGIN_PATH,
    requestIds(),
    (_req, res, next) => {
      res.set('Cache-Control', 'no-store');
      next();
    },
    express.json({ limit: 4096 }),
    express.urlencoded({ limit: 4096, extended: false }),
    (req, res, next) => {
      const mediaType = mediaTypeOf(req.headers['content-type']);
      const answer =
        mediaType === 'application/json'
          ? platformStyleLogin(req, res)
          : mediaType === 'application/x-www-form-urlencoded'
            ? oauthLogin(req, res)
            : undefined;
      if (answer === undefined) {
        sendProblem(res, {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          detail: `${PLATFORM_STYLE}, ${OAUTH_STYLE}.`,
        });
        return;
      }
      answer.catch(next);
    },
  );
  router.all(LOGIN_PATH, (_req, res) => {
    sendProblem(res, {
      code: 'METHOD_NOT_ALLOWED',
      detail: 'Log in with POST.',
      headers: { Allow: 'POST' },
    });
  });
  return router;
}
