import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { ProblemOccurrence } from '@workforce-kit/http';
import type { SeedClient } from '@workforce-kit/seed-file';
import { SignJWT } from 'jose';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { type HostAnswer, type HostRequest, type HostRoute, json } from './host-routes.js';

/** The path of the development token endpoint (docs/contract.md). */
export const LOGIN_PATH = '/authentication/v1/authentication/login';
/** Lifetime of a development token. */
export const TOKEN_LIFETIME_SECONDS = 3600;
/** The largest login body, in bytes, as sent and once inflated. */
export const LOGIN_BODY_LIMIT = 4096;
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

/** Every answer of the login: tokens are never to be cached. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

function answerProblem(occurrence: ProblemOccurrence): HostAnswer {
  return { problem: { ...occurrence, headers: { ...NO_STORE, ...occurrence.headers } } };
}

function answerJson(body: unknown): HostAnswer {
  return { ...json(body), headers: NO_STORE } as HostAnswer;
}

/** The media type of a Content-Type header, lower case, and the charset it names, if any. */
function mediaTypeOf(header: string | undefined): { type: string; charset: string | undefined } {
  const [type = '', ...parameters] = (header ?? '')
    .split(';')
    .map((part) => part.trim().toLowerCase());
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replaceAll('"', '');
  return { type, charset };
}

const UNSUPPORTED_ENCODING: ProblemOccurrence = {
  code: 'UNSUPPORTED_MEDIA_TYPE',
  detail: 'The body encoding is not supported.',
};

const INFLATERS = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync } as const;

/**
 * The text of a body: inflated as its `Content-Encoding` says (gzip, deflate, br; at most the
 * login's limit), in UTF-8 (the one charset taken), or the problem that answers it.
 */
function bodyText(headers: IncomingHttpHeaders, raw: Buffer | undefined): string | HostAnswer {
  const { charset } = mediaTypeOf(headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8') return answerProblem(UNSUPPORTED_ENCODING);
  const encoding = headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
  const bytes = raw ?? Buffer.alloc(0);
  if (encoding === 'identity') return bytes.toString('utf8');
  if (!Object.hasOwn(INFLATERS, encoding)) return answerProblem(UNSUPPORTED_ENCODING);
  try {
    const inflate = INFLATERS[encoding as keyof typeof INFLATERS];
    return inflate(bytes, { maxOutputLength: LOGIN_BODY_LIMIT }).toString('utf8');
  } catch (error) {
    return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
      ? answerProblem({ code: 'PAYLOAD_TOO_LARGE', detail: 'The request body is too large.' })
      : answerProblem({
          code: 'MALFORMED_JSON',
          detail: 'The request body cannot be read as its Content-Encoding says.',
        });
  }
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
function basicCredentials(
  header: string | undefined,
): { id: string; secret: string } | 'malformed' | undefined {
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
): HostAnswer {
  return answerProblem({
    ...occurrence,
    extensions: { error, error_description: occurrence.detail },
  });
}

/** A development token for the client: HS256, for an hour, its scopes and restaurants as claims. */
function signToken(options: DevLoginOptions, client: SeedClient): Promise<string> {
  return new SignJWT({
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
}

/** Wrong logins counted per client address and per client id, over 15 minutes. */
class WrongLoginThrottle {
  readonly #knownClients: ReadonlySet<string>;
  readonly #byClient = new RateLimiterMemory({
    keyPrefix: 'login-client',
    points: WRONG_LOGINS_PER_15_MINUTES.perClient,
    duration: 15 * 60,
  });
  readonly #byAddress = new RateLimiterMemory({
    keyPrefix: 'login-address',
    points: WRONG_LOGINS_PER_15_MINUTES.perAddress,
    duration: 15 * 60,
  });

  constructor(clients: readonly SeedClient[]) {
    this.#knownClients = new Set(clients.map((client) => client.clientId));
  }

  /** Seconds until this login may be tried again, or 0 when it is not throttled. */
  async waitSeconds(request: HostRequest, clientId: string): Promise<number> {
    let wait = 0;
    for (const { limiter, key } of this.#throttles(request, clientId)) {
      const state = await limiter.get(key);
      if (state !== null && state.remainingPoints <= 0) {
        wait = Math.max(wait, Math.ceil(state.msBeforeNext / 1000));
      }
    }
    return wait;
  }

  /** Counts a wrong login against its throttles. */
  async count(request: HostRequest, clientId: string): Promise<void> {
    for (const { limiter, key } of this.#throttles(request, clientId)) {
      await limiter.consume(key).catch((refusal: unknown) => {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
      });
    }
  }

  /** The throttles of a login: its address, and its client id when it names a client. */
  #throttles(request: HostRequest, clientId: string) {
    const byAddress = { limiter: this.#byAddress, key: request.address ?? 'unknown' };
    // Unknown client ids count against the address only: they cannot grow the client table.
    return this.#knownClients.has(clientId)
      ? [byAddress, { limiter: this.#byClient, key: clientId }]
      : [byAddress];
  }
}

/** The login's two styles over one check of the credentials and one throttle. */
class DevLogin {
  readonly #options: DevLoginOptions;
  readonly #throttle: WrongLoginThrottle;

  constructor(options: DevLoginOptions) {
    this.#options = options;
    this.#throttle = new WrongLoginThrottle(options.clients);
  }

  /** A POST: the platform's JSON login, or the OAuth 2.0 form, by its media type. */
  handle(request: HostRequest): HostAnswer | Promise<HostAnswer> {
    const { type } = mediaTypeOf(request.headers['content-type']);
    if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
      return answerProblem({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        detail: `${PLATFORM_STYLE}, ${OAUTH_STYLE}.`,
      });
    }
    const text = bodyText(request.headers, request.body);
    if (typeof text !== 'string') return text;
    return type === 'application/json'
      ? this.#platformStyleLogin(request, text)
      : this.#oauthLogin(request, text);
  }

  async #platformStyleLogin(request: HostRequest, text: string): Promise<HostAnswer> {
    const login = platformLoginOf(text);
    if (!('clientId' in login)) return login;
    const client = await this.#clientFor(request, login.clientId, login.clientSecret, false);
    if (!('clientId' in client)) return client;
    return answerJson({
      token: {
        tokenType: 'Bearer',
        accessToken: await signToken(this.#options, client),
        expiresIn: TOKEN_LIFETIME_SECONDS,
        scope: client.scopes.join(' '),
      },
      status: 'SUCCESS',
    });
  }

  async #oauthLogin(request: HostRequest, text: string): Promise<HostAnswer> {
    const credentials = oauthCredentialsOf(request, text);
    if (!('id' in credentials)) return credentials;
    const client = await this.#clientFor(request, credentials.id, credentials.secret, true);
    if (!('clientId' in client)) return client;
    return answerJson({
      access_token: await signToken(this.#options, client),
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      scope: client.scopes.join(' '),
    });
  }

  /** The client of the credentials, or the answer why not. */
  async #clientFor(
    request: HostRequest,
    clientId: string,
    secret: string,
    oauth: boolean,
  ): Promise<SeedClient | HostAnswer> {
    const wait = await this.#throttle.waitSeconds(request, clientId);
    if (wait > 0) {
      return answerProblem({
        code: 'RATE_LIMITED',
        detail: `Too many wrong logins; retry in ${wait} s.`,
        headers: { 'Retry-After': String(wait) },
      });
    }
    const client = authenticate(this.#options.clients, clientId, secret);
    if (client !== undefined) return client;
    await this.#throttle.count(request, clientId);
    const refusal: ProblemOccurrence = {
      code: 'INVALID_CLIENT',
      detail: 'The client id or secret is wrong.',
      ...(oauth ? { headers: { 'WWW-Authenticate': 'Basic realm="workforce-kit"' } } : {}),
    };
    return oauth ? oauthProblem(refusal, 'invalid_client') : answerProblem(refusal);
  }
}

/** The platform-style login of a JSON body, or the problem that answers it. */
function platformLoginOf(text: string): z.infer<typeof platformLogin> | HostAnswer {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    return answerProblem({ code: 'MALFORMED_JSON', detail: 'The request body is not valid JSON.' });
  }
  const login = platformLogin.safeParse(body);
  if (login.success) return login.data;
  return answerProblem({
    code: 'VALIDATION_FAILED',
    detail: `${PLATFORM_STYLE}.`,
    errors: login.error.issues.map((issue) => ({
      path: `/body${issue.path.map((key) => `/${String(key)}`).join('')}`,
      message: issue.message,
    })),
  });
}

/**
 * The client credentials of an OAuth 2.0 form, from HTTP Basic or the form itself, or the problem
 * that answers it.
 */
function oauthCredentialsOf(
  request: HostRequest,
  text: string,
): { readonly id: string; readonly secret: string } | HostAnswer {
  const form = oauthForm.safeParse(Object.fromEntries(new URLSearchParams(text)));
  if (!form.success) {
    return oauthProblem(
      {
        code: 'VALIDATION_FAILED',
        detail: `The form needs grant_type=client_credentials. ${PLATFORM_STYLE}, ${OAUTH_STYLE}.`,
      },
      'unsupported_grant_type',
    );
  }
  const basic = basicCredentials(request.headers.authorization);
  if (basic === 'malformed') {
    return oauthProblem(
      {
        code: 'VALIDATION_FAILED',
        detail: 'The Authorization header is not HTTP Basic credentials of a client.',
      },
      'invalid_request',
    );
  }
  return {
    id: basic?.id ?? form.data.client_id ?? '',
    secret: basic?.secret ?? form.data.client_secret ?? '',
  };
}

/**
 * The development token endpoint of the reference server, in the platform's style:
 * `POST {clientId, clientSecret, userAccessType: "MACHINE_CLIENT"}` answers
 * `{token: {tokenType, accessToken, expiresIn, scope}, status: "SUCCESS"}`. It also takes the
 * OAuth 2.0 client-credentials form (RFC 6749), so that the API reference page can log in. The
 * clients, their secrets, scopes and restaurants are the seed's. Every error is problem details,
 * as the API's are (with OAuth's `error` member for the form); wrong logins are throttled per
 * client id and per client address ({@link WRONG_LOGINS_PER_15_MINUTES}). A route of the
 * reference server, for either framework; it enables it with `AUTH_MODE=dev`.
 */
export function devLoginRoutes(options: DevLoginOptions): HostRoute[] {
  const login = new DevLogin(options);
  return [
    {
      method: 'POST',
      path: LOGIN_PATH,
      bodyLimit: LOGIN_BODY_LIMIT,
      handle: (request) => login.handle(request),
    },
    {
      method: 'ALL',
      path: LOGIN_PATH,
      handle: () =>
        answerProblem({
          code: 'METHOD_NOT_ALLOWED',
          detail: 'Log in with POST.',
          headers: { Allow: 'POST' },
        }),
    },
  ];
}
