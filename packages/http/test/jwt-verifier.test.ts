// createJwtVerifier on its own: the claims it reads, every way a token is refused, the three key
// sources (a real JWKS endpoint on 127.0.0.1 included), the cache of verified tokens, and the
// options it refuses at start-up.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtVerifier, type Principal } from '../src/index.js';

const SECRET = 'workforce-kit-test-secret-0123456789abcdef';

const RESTAURANT_A = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const RESTAURANT_B = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';

const EXPIRED = 'The access token has expired';
const NOT_YET_VALID = 'The access token is not valid yet';
const BAD_SIGNATURE = 'The access token signature does not verify';
const BAD_ALGORITHM = 'The token algorithm is not accepted';
const MALFORMED = 'The access token is malformed';
const RESTAURANTS_MALFORMED = 'The restaurants claim must list restaurant GUIDs or "*"';
const SCOPE_MALFORMED = 'The scope claim is malformed';
const claimRefused = (claim: string) => `The access token's ${claim} claim is not accepted`;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const encode = (text: string) => new TextEncoder().encode(text);
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A compact JWS of these raw parts, signed HS256 with the harness secret by hand. */
const hmacSigned = (header: string, payload: string) =>
  `${header}.${payload}.${createHmac('sha256', SECRET).update(`${header}.${payload}`).digest('base64url')}`;

interface SignOptions {
  readonly alg?: string;
  readonly kid?: string;
  readonly key?: Parameters<SignJWT['sign']>[0];
  /** Seconds since the epoch, or `null` for no `exp` claim. @default five minutes ahead */
  readonly exp?: number | null;
}

/** Signs `claims` as they are (no defaults but `exp`), HS256 with the harness secret unless told. */
function sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
  const { alg = 'HS256', kid, key = encode(SECRET), exp = nowSeconds() + 300 } = options;
  const jwt = new SignJWT(claims).setProtectedHeader(kid === undefined ? { alg } : { alg, kid });
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(key);
}

/** Claims a valid token of these tests carries. */
const valid = (claims: JWTPayload = {}): JWTPayload => ({
  scope: 'labor.shifts:write',
  restaurants: [RESTAURANT_A],
  ...claims,
});

const hs256 = (options: { readonly clockToleranceSeconds?: number } = {}) =>
  createJwtVerifier({ hs256Secret: SECRET, ...options });

async function principalOf(token: string, verifier = hs256()): Promise<Principal> {
  return (await verifier.verify(token))._unsafeUnwrap();
}

async function refusal(token: string, verifier = hs256()): Promise<unknown> {
  return (await verifier.verify(token))._unsafeUnwrapErr();
}

/** The reason each refusal is reported with. */
const REASONS: Record<string, string> = {
  [EXPIRED]: 'expired',
  [NOT_YET_VALID]: 'not-yet-valid',
  [BAD_SIGNATURE]: 'signature',
  [BAD_ALGORITHM]: 'algorithm',
  [MALFORMED]: 'malformed',
};
const rejected = (description: string) => ({
  type: 'TokenRejected',
  description,
  reason: REASONS[description] ?? 'claim',
});

describe('an HS256 verifier', () => {
  it('reads the scopes of a space-separated scope claim', async () => {
    const principal = await principalOf(
      await sign(valid({ scope: 'labor.shifts:write  restaurants:read ' })),
    );
    expect(principal.scopes).toEqual(new Set(['labor.shifts:write', 'restaurants:read']));
  });

  it('reads the scopes of an array scope claim', async () => {
    const principal = await principalOf(
      await sign(valid({ scope: ['labor.employees:write', 'restaurants:read'] })),
    );
    expect(principal.scopes).toEqual(new Set(['labor.employees:write', 'restaurants:read']));
  });

  it('grants no scope when the scope claim is absent', async () => {
    const principal = await principalOf(await sign({ restaurants: [RESTAURANT_A] }));
    expect(principal.scopes.size).toBe(0);
  });

  it('lower-cases the restaurant GUIDs of the claim', async () => {
    const principal = await principalOf(
      await sign(
        valid({
          restaurants: [RESTAURANT_A.toUpperCase(), 'B7F1c3a2-4E5D-4f60-8A9B-0c1d2e3f4a5b'],
        }),
      ),
    );
    expect(principal.restaurants).toEqual(new Set([RESTAURANT_A, RESTAURANT_B]));
  });

  it.each([
    ['"*"', '*'],
    ['["*"]', ['*']],
    ['a list holding "*"', [RESTAURANT_A, '*']],
  ])('grants every restaurant for %s', async (_name, restaurants) => {
    const principal = await principalOf(await sign(valid({ restaurants })));
    expect(principal.restaurants).toBe('all');
  });

  it('takes the subject from sub, and has none without it', async () => {
    const withSub = await principalOf(await sign(valid({ sub: 'client-42' })));
    const withoutSub = await principalOf(await sign(valid()));
    expect(withSub.subject).toBe('client-42');
    expect(withoutSub).not.toHaveProperty('subject');
  });

  it('accepts a token expired within the default 5 s tolerance', async () => {
    const principal = await principalOf(await sign(valid(), { exp: nowSeconds() - 2 }));
    expect(principal.restaurants).toEqual(new Set([RESTAURANT_A]));
  });
});

describe('refused tokens', () => {
  it('refuses a token expired beyond the tolerance', async () => {
    expect(await refusal(await sign(valid(), { exp: nowSeconds() - 10 }))).toEqual(
      rejected(EXPIRED),
    );
  });

  it('refuses a token whose nbf is in the future', async () => {
    const token = await sign(valid({ nbf: nowSeconds() + 60 }));
    expect(await refusal(token)).toEqual(rejected(NOT_YET_VALID));
  });

  it('refuses a token without exp', async () => {
    expect(await refusal(await sign(valid(), { exp: null }))).toEqual(
      rejected(claimRefused('exp')),
    );
  });

  it('refuses an exp that is not a number', async () => {
    const token = await sign(valid({ exp: 'tomorrow' as unknown as number }), { exp: null });
    expect(await refusal(token)).toEqual(rejected(claimRefused('exp')));
  });

  it('refuses a signature made with another secret', async () => {
    const token = await sign(valid(), { key: encode('another-secret-of-at-least-32-bytes!!') });
    expect(await refusal(token)).toEqual(rejected(BAD_SIGNATURE));
  });

  it('refuses a tampered payload', async () => {
    const [header, , signature] = (await sign(valid())).split('.');
    const forged = base64url({ ...valid({ restaurants: '*' }), exp: nowSeconds() + 300 });
    expect(await refusal(`${header}.${forged}.${signature}`)).toEqual(rejected(BAD_SIGNATURE));
  });

  it('refuses an unsigned token (alg none)', async () => {
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...valid({ restaurants: '*' }), exp: nowSeconds() + 300 })}.`;
    expect(await refusal(token)).toEqual(rejected(BAD_ALGORITHM));
  });

  it('refuses an HS512 token when HS256 is the allowed algorithm', async () => {
    const token = await sign(valid(), { alg: 'HS512', key: encode(`${SECRET}${SECRET}`) });
    const verifier = createJwtVerifier({ hs256Secret: `${SECRET}${SECRET}` });
    expect(await refusal(token, verifier)).toEqual(rejected(BAD_ALGORITHM));
  });

  it.each([
    ['an empty string', ''],
    ['a word', 'garbage'],
    ['three dots of nothing', '..'],
    ['base64 that is not JSON', 'bm90IGpzb24.bm90IGpzb24.c2ln'],
    [
      'a well-signed token whose payload is not JSON',
      hmacSigned(base64url({ alg: 'HS256' }), 'bm90IGpzb24'),
    ],
    [
      'a well-signed token whose payload is a JSON list',
      hmacSigned(base64url({ alg: 'HS256' }), base64url([1])),
    ],
  ])('refuses %s as malformed', async (_name, token) => {
    expect(await refusal(token)).toEqual(rejected(MALFORMED));
  });

  it.each([
    ['a single GUID, not a list', RESTAURANT_A],
    ['a list with a non-GUID', [RESTAURANT_A, 'downtown']],
    ['"*" beside a non-GUID', ['*', 'not-a-guid']],
    ['a list with a number', [42]],
    ['a number', 42],
    ['an object', { guid: RESTAURANT_A }],
  ])('refuses a restaurants claim that is %s', async (_name, restaurants) => {
    const token = await sign({ scope: 'restaurants:read', restaurants });
    expect(await refusal(token)).toEqual(rejected(RESTAURANTS_MALFORMED));
  });

  it('refuses a token issued in the future (iat past the clock tolerance)', async () => {
    const tomorrow = await sign(valid({ iat: nowSeconds() + 86_400 }), {
      exp: nowSeconds() + 90_000,
    });
    expect(await refusal(tomorrow)).toEqual({
      type: 'TokenRejected',
      reason: 'not-yet-valid',
      description: 'The access token is issued in the future',
    });
    const skewed = await sign(valid({ iat: nowSeconds() + 3 }));
    expect((await hs256().verify(skewed)).isOk()).toBe(true);
  });

  it('requires typ at+jwt (RFC 9068) when asked to, and only then', async () => {
    const plain = await sign(valid());
    const accessToken = await new SignJWT(valid())
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setExpirationTime(nowSeconds() + 300)
      .sign(encode(SECRET));
    const strict = createJwtVerifier({ hs256Secret: SECRET, requireAccessTokenType: true });
    expect(await refusal(plain, strict)).toEqual(rejected(claimRefused('typ')));
    expect((await strict.verify(accessToken)).isOk()).toBe(true);
    expect((await hs256().verify(plain)).isOk()).toBe(true);
  });

  it.each([
    ['a number', 42],
    ['an object', { read: true }],
    ['a list with a number', ['restaurants:read', 7]],
  ])('refuses a scope claim that is %s', async (_name, scope) => {
    const token = await sign(valid({ scope }));
    expect(await refusal(token)).toEqual(rejected(SCOPE_MALFORMED));
  });
});

describe('issuer and audience', () => {
  const verifier = createJwtVerifier({
    hs256Secret: SECRET,
    issuer: 'https://id.example.com',
    audience: ['workforce-api', 'legacy-api'],
  });

  it('accepts the configured issuer and any of the audiences', async () => {
    for (const aud of ['workforce-api', 'legacy-api', ['other', 'legacy-api']]) {
      const token = await sign(valid({ iss: 'https://id.example.com', aud }));
      expect((await verifier.verify(token)).isOk(), JSON.stringify(aud)).toBe(true);
    }
  });

  it.each([
    ['another issuer', { iss: 'https://evil.example.com', aud: 'workforce-api' }, 'iss'],
    ['no issuer', { aud: 'workforce-api' }, 'iss'],
    ['another audience', { iss: 'https://id.example.com', aud: 'billing-api' }, 'aud'],
    ['no audience', { iss: 'https://id.example.com' }, 'aud'],
  ])('refuses %s', async (_name, claims, claim) => {
    expect(await refusal(await sign(valid(claims)), verifier)).toEqual(
      rejected(claimRefused(claim)),
    );
  });

  it('accepts a single configured audience', async () => {
    const single = createJwtVerifier({ hs256Secret: SECRET, audience: 'workforce-api' });
    expect((await single.verify(await sign(valid({ aud: 'workforce-api' })))).isOk()).toBe(true);
    expect(await refusal(await sign(valid({ aud: 'legacy-api' })), single)).toEqual(
      rejected(claimRefused('aud')),
    );
  });

  it('ignores iss and aud when none is configured', async () => {
    const token = await sign(valid({ iss: 'anyone', aud: 'anything' }));
    expect((await hs256().verify(token)).isOk()).toBe(true);
  });
});

describe('a PEM public key', () => {
  let privateKey: CryptoKey;
  let publicKeyPem: string;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    publicKeyPem = await exportSPKI(pair.publicKey);
  });

  it('accepts RS256 tokens signed by its private key', async () => {
    const verifier = createJwtVerifier({ publicKeyPem });
    const token = await sign(valid({ sub: 'rsa-client' }), { alg: 'RS256', key: privateKey });
    const principal = await principalOf(token, verifier);
    expect(principal).toEqual({
      subject: 'rsa-client',
      scopes: new Set(['labor.shifts:write']),
      restaurants: new Set([RESTAURANT_A]),
    });
  });

  it('refuses an RS256 token of another key pair', async () => {
    const other = await generateKeyPair('RS256');
    const token = await sign(valid(), { alg: 'RS256', key: other.privateKey });
    expect(await refusal(token, createJwtVerifier({ publicKeyPem }))).toEqual(
      rejected(BAD_SIGNATURE),
    );
  });

  it('refuses an HS256 token (outside its allow-list)', async () => {
    expect(await refusal(await sign(valid()), createJwtVerifier({ publicKeyPem }))).toEqual(
      rejected(BAD_ALGORITHM),
    );
  });

  it('refuses an RS256 token when the allow-list is narrowed to PS256', async () => {
    const verifier = createJwtVerifier({ publicKeyPem, algorithms: ['PS256'] });
    const token = await sign(valid(), { alg: 'RS256', key: privateKey });
    expect(await refusal(token, verifier)).toEqual(rejected(BAD_ALGORITHM));
  });
});

describe('a JWKS URL', () => {
  const KID = 'key-2026-01';
  let privateKey: CryptoKey;
  let jwks: unknown;
  /** How the JWKS endpoint answers: the key set, or a dropped connection. */
  let mode: 'serve' | 'drop' | 'error' | 'garbage' = 'serve';
  let fetches = 0;
  let server: Server;
  let jwksUrl: string;
  let stoppedUrl: string;

  function listen(target: Server): Promise<string> {
    return new Promise((resolve) => {
      target.listen(0, '127.0.0.1', () => {
        resolve(`http://127.0.0.1:${(target.address() as AddressInfo).port}/.well-known/jwks.json`);
      });
    });
  }

  const close = (target: Server) =>
    new Promise<void>((resolve) => {
      target.closeAllConnections();
      target.close(() => resolve());
    });

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' }] };
    server = createServer((req, res) => {
      fetches += 1;
      if (mode === 'drop') {
        req.socket.destroy();
        return;
      }
      if (mode === 'error') {
        res.writeHead(500).end('upstream failure');
        return;
      }
      if (mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    jwksUrl = await listen(server);
    const stopped = createServer();
    stoppedUrl = await listen(stopped);
    await close(stopped);
  });

  afterAll(async () => {
    await close(server);
  });

  it('accepts a token signed with the key of the kid', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    const token = await sign(valid({ sub: 'jwks-client' }), {
      alg: 'ES256',
      kid: KID,
      key: privateKey,
    });
    expect(await principalOf(token, verifier)).toEqual({
      subject: 'jwks-client',
      scopes: new Set(['labor.shifts:write']),
      restaurants: new Set([RESTAURANT_A]),
    });
  });

  it('takes the URL as a URL object too', async () => {
    const verifier = createJwtVerifier({ jwksUrl: new URL(jwksUrl) });
    const token = await sign(valid(), { alg: 'ES256', kid: KID, key: privateKey });
    expect((await verifier.verify(token)).isOk()).toBe(true);
  });

  it('refuses a token of an unknown kid', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    const token = await sign(valid(), { alg: 'ES256', kid: 'key-1999', key: privateKey });
    expect(await refusal(token, verifier)).toEqual(rejected(BAD_SIGNATURE));
  });

  it('refuses a token of the right kid signed by another key', async () => {
    const other = await generateKeyPair('ES256');
    const token = await sign(valid(), { alg: 'ES256', kid: KID, key: other.privateKey });
    expect(await refusal(token, createJwtVerifier({ jwksUrl }))).toEqual(rejected(BAD_SIGNATURE));
  });

  it('refuses an HS256 token without fetching the keys', async () => {
    const before = fetches;
    const token = await sign(valid(), { kid: KID });
    expect(await refusal(token, createJwtVerifier({ jwksUrl }))).toEqual(rejected(BAD_ALGORITHM));
    expect(fetches).toBe(before);
  });

  it('is unavailable, not a refusal, when the JWKS endpoint is down', async () => {
    const verifier = createJwtVerifier({ jwksUrl: stoppedUrl });
    const token = await sign(valid(), { alg: 'ES256', kid: KID, key: privateKey });
    const failure = await refusal(token, verifier);
    expect(failure).toMatchObject({ type: 'VerifierUnavailable' });
    expect(failure).toHaveProperty('cause');
  });

  it('is unavailable while the endpoint drops connections, and recovers after', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    const token = await sign(valid(), { alg: 'ES256', kid: KID, key: privateKey });
    mode = 'drop';
    try {
      expect(await refusal(token, verifier)).toMatchObject({ type: 'VerifierUnavailable' });
    } finally {
      mode = 'serve';
    }
    expect((await verifier.verify(token)).isOk()).toBe(true);
  });

  it.each(['error', 'garbage'] as const)(
    'is unavailable, not a refusal, while the endpoint answers %s, and recovers after',
    async (failure) => {
      const verifier = createJwtVerifier({ jwksUrl });
      const token = await sign(valid(), { alg: 'ES256', kid: KID, key: privateKey });
      mode = failure;
      try {
        expect(await refusal(token, verifier)).toMatchObject({ type: 'VerifierUnavailable' });
      } finally {
        mode = 'serve';
      }
      expect((await verifier.verify(token)).isOk()).toBe(true);
    },
  );

  it('fetches the key set once for many tokens', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    const before = fetches;
    for (const sub of ['a', 'b', 'c']) {
      const token = await sign(valid({ sub }), { alg: 'ES256', kid: KID, key: privateKey });
      expect((await verifier.verify(token)).isOk()).toBe(true);
    }
    expect(fetches - before).toBe(1);
  });
});

describe('the cache of verified tokens', () => {
  it('gives an equal principal for the same token twice', async () => {
    const verifier = hs256();
    const token = await sign(valid({ sub: 'twice', restaurants: [RESTAURANT_B.toUpperCase()] }));
    const first = await principalOf(token, verifier);
    const second = await principalOf(token, verifier);
    expect(second).toEqual(first);
    expect(second.restaurants).toEqual(new Set([RESTAURANT_B]));
  });

  it('does not outlive the token: refused once exp has passed', async () => {
    const verifier = hs256({ clockToleranceSeconds: 0 });
    const exp = nowSeconds() + 2;
    const token = await sign(valid(), { exp });
    expect((await verifier.verify(token)).isOk()).toBe(true);
    // Real time: jose reads Date, the cache its own clock; both must agree the token is over.
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 100 - Date.now()));
    expect(await refusal(token, verifier)).toEqual(rejected(EXPIRED));
  });
});

describe('options', () => {
  it('throws at creation on an HS256 secret shorter than 32 bytes', () => {
    expect(() => createJwtVerifier({ hs256Secret: 'x'.repeat(31) })).toThrow(/at least 32 bytes/);
    expect(() => createJwtVerifier({ hs256Secret: '' })).toThrow(/at least 32 bytes/);
  });

  it('counts the secret in bytes, not characters', () => {
    expect(() => createJwtVerifier({ hs256Secret: 'x'.repeat(32) })).not.toThrow();
    expect(() => createJwtVerifier({ hs256Secret: 'é'.repeat(16) })).not.toThrow();
    expect(() => createJwtVerifier({ hs256Secret: 'é'.repeat(15) })).toThrow(/at least 32 bytes/);
  });

  it('throws at creation on a PEM that is not a key, and on a JWKS URL that is not a URL', () => {
    expect(() =>
      createJwtVerifier({
        publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----',
      }),
    ).toThrow();
    expect(() => createJwtVerifier({ jwksUrl: 'not a url' })).toThrow();
  });

  it('reads custom scope and restaurants claims, and only them', async () => {
    const verifier = createJwtVerifier({
      hs256Secret: SECRET,
      scopeClaim: 'scp',
      restaurantsClaim: 'https://workforce-kit.dev/restaurants',
    });
    const token = await sign({
      scp: ['restaurants:read'],
      'https://workforce-kit.dev/restaurants': [RESTAURANT_B],
      scope: 'labor.shifts:write',
      restaurants: '*',
    });
    const principal = await principalOf(token, verifier);
    expect(principal.scopes).toEqual(new Set(['restaurants:read']));
    expect(principal.restaurants).toEqual(new Set([RESTAURANT_B]));

    const standard = await principalOf(await sign(valid()), verifier);
    expect(standard.scopes).toEqual(new Set());
    expect(standard.restaurants).toEqual(new Set());
  });

  it('lets a token without a restaurants claim act for no restaurant', async () => {
    const principal = await principalOf(await sign({ scope: 'restaurants:read' }));
    expect(principal.restaurants).toEqual(new Set());
  });

  it('remembers no token with cacheSize 0', async () => {
    const verifier = createJwtVerifier({ hs256Secret: SECRET, cacheSize: 0 });
    const token = await sign(valid());
    expect(await principalOf(token, verifier)).toEqual(await principalOf(token, verifier));
  });

  it('names the custom scope claim when it is malformed', async () => {
    const verifier = createJwtVerifier({ hs256Secret: SECRET, scopeClaim: 'scp' });
    expect(await refusal(await sign(valid({ scp: 3 })), verifier)).toEqual(
      rejected('The scp claim is malformed'),
    );
  });
});
