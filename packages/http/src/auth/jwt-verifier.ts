import { createPublicKey, type KeyObject } from 'node:crypto';
import { isGuid } from '@workforce-kit/core';
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import { errAsync, type Ok, ok, okAsync, ResultAsync } from 'neverthrow';
import type {
  AccessTokenVerifier,
  Principal,
  TokenRejected,
  TokenRejectedReason,
  VerifierUnavailable,
} from './access-token.js';

/** Where the verification key comes from: exactly one of these. */
export type JwtKeySource =
  | { readonly jwksUrl: string | URL }
  | { readonly publicKeyPem: string }
  | { readonly hs256Secret: string };

/** Options of {@link createJwtVerifier}. */
export type JwtVerifierOptions = JwtKeySource & {
  /**
   * Accepted signing algorithms.
   * @default ['HS256'] for an HS256 secret; ['RS256', 'PS256', 'ES256', 'EdDSA'] otherwise
   */
  readonly algorithms?: readonly string[];
  /** Required `iss`, when set. */
  readonly issuer?: string;
  /** Required `aud` (one of them), when set. */
  readonly audience?: string | readonly string[];
  /** Seconds of clock skew tolerated on `exp`, `nbf` and `iat`. @default 5 */
  readonly clockToleranceSeconds?: number;
  /**
   * Accept only access tokens in the JWT profile of RFC 9068: a `typ` header of `at+jwt`. Turn it
   * on when your identity provider marks its access tokens so, and an ID token (or any other JWT
   * signed with the same key) must not pass for one.
   * @default false
   */
  readonly requireAccessTokenType?: boolean;
  /** The claim with the space-separated scopes (a string, or an array). @default 'scope' */
  readonly scopeClaim?: string;
  /**
   * The claim with the restaurant GUIDs the client may act for, or `"*"`; a token without it may act
   * for none. @default 'restaurants'
   */
  readonly restaurantsClaim?: string;
  /** How many verified tokens to remember until they expire; 0 remembers none. @default 10000 */
  readonly cacheSize?: number;
  /**
   * The most memory, in bytes (approximately), the remembered tokens and their principals may
   * take: tokens can be as long as a request's headers, so a count alone does not bound it.
   * @default 16777216 (16 MiB)
   */
  readonly cacheMaxBytes?: number;
};

/** About what a remembered token costs: its text (UTF-16) and its principal's sets. */
function cachedBytes(known: Ok<Principal, never>, token: string): number {
  const principal = known.value;
  const restaurants = principal.restaurants === 'all' ? 0 : principal.restaurants.size;
  return 2 * token.length + 64 * (restaurants + principal.scopes.size) + 256;
}

const ASYMMETRIC_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/**
 * The options of every cache read, given so that lru-cache does not make its default `{}` on each
 * (it sets `status` on them: undefined, without a diagnostics subscriber).
 */
const CACHE_GET: LRUCache.GetOptions<string, Ok<Principal, never>, unknown> = {};

const rejected = (reason: TokenRejectedReason, description: string): TokenRejected => ({
  type: 'TokenRejected',
  reason,
  description,
});

/** The key set could not be had: the identity provider's fault, not the token's. */
class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable';
}

/**
 * A JWKS key lookup that tells the token's fault (no key has its `kid`) from the key source's
 * (a timeout, a refused connection, a 500, a body that is not a key set).
 */
function remoteKeySet(url: URL): JWTVerifyGetKey {
  const keySet = createRemoteJWKSet(url, { timeoutDuration: 3_000 });
  return async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys
      )
        throw error;
      throw new KeySetUnavailable('the JSON Web Key Set could not be fetched', { cause: error });
    }
  };
}

function describeFailure(error: unknown): TokenRejected | VerifierUnavailable {
  if (error instanceof KeySetUnavailable)
    return { type: 'VerifierUnavailable', cause: error.cause };
  if (error instanceof errors.JWTExpired)
    return rejected('expired', 'The access token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.claim === 'nbf'
      ? rejected('not-yet-valid', 'The access token is not valid yet')
      : rejected('claim', `The access token's ${error.claim} claim is not accepted`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return rejected('algorithm', 'The token algorithm is not accepted');
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey
  ) {
    return rejected('signature', 'The access token signature does not verify');
  }
  if (error instanceof errors.JOSEError)
    return rejected('malformed', 'The access token is malformed');
  return rejected('malformed', 'The access token cannot be verified');
}

function scopesOf(payload: JWTPayload, claim: string): ReadonlySet<string> | undefined {
  const value = payload[claim];
  if (typeof value === 'string') return new Set(value.split(' ').filter(Boolean));
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return new Set(value);
  return value === undefined ? new Set() : undefined;
}

function restaurantsOf(payload: JWTPayload, claim: string): Principal['restaurants'] | undefined {
  const value = payload[claim];
  if (value === undefined) return new Set();
  if (value === '*') return 'all';
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return undefined;
  // Every entry must be a GUID or "*": junk is refused beside "*" as it is without it.
  if (!value.every((item) => item === '*' || isGuid(item))) return undefined;
  if (value.includes('*')) return 'all';
  return new Set(value.map((guid) => guid.toLowerCase()));
}

function keyFor(source: JwtKeySource): {
  key: Uint8Array | KeyObject | JWTVerifyGetKey;
  symmetric: boolean;
} {
  if ('jwksUrl' in source) {
    return {
      key: remoteKeySet(new URL(source.jwksUrl)),
      symmetric: false,
    };
  }
  if ('publicKeyPem' in source)
    return { key: createPublicKey(source.publicKeyPem), symmetric: false };
  const secret = new TextEncoder().encode(source.hs256Secret);
  if (secret.length < 32) throw new Error('hs256Secret must be at least 32 bytes');
  return { key: secret, symmetric: true };
}

/**
 * A JWT access-token verifier built on `jose`: the key from a JWKS URL, a PEM public key or an
 * HS256 secret; an algorithm allow-list; `exp` (required), `nbf`, `iss` and `aud`; scopes and
 * restaurants from their claims. Verified tokens are remembered until they expire (at most
 * `cacheSize` of them, in at most `cacheMaxBytes`), so a client's repeated token costs one
 * signature check, not one per request.
 *
 * @param options - the key source and the claims to check
 * @returns the verifier to pass as `auth` to `createRouter`
 * @throws when the options are unusable (a short secret, a bad PEM): at start-up, not per request
 * @example
 * ```ts
 * const auth = createJwtVerifier({ jwksUrl: 'https://id.example.com/.well-known/jwks.json', issuer: 'https://id.example.com', audience: 'workforce-api' });
 * const api = createApi({ store, auth });
 * ```
 */
export function createJwtVerifier(options: JwtVerifierOptions): AccessTokenVerifier {
  const { key, symmetric } = keyFor(options);
  const algorithms = [...(options.algorithms ?? (symmetric ? ['HS256'] : ASYMMETRIC_ALGORITHMS))];
  const toleranceSeconds = options.clockToleranceSeconds ?? 5;
  const scopeClaim = options.scopeClaim ?? 'scope';
  const restaurantsClaim = options.restaurantsClaim ?? 'restaurants';
  const verifyOptions = {
    algorithms,
    clockTolerance: toleranceSeconds,
    requiredClaims: ['exp'],
    ...(options.requireAccessTokenType === true ? { typ: 'at+jwt' } : {}),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: [options.audience].flat() }),
  };
  const cacheSize = options.cacheSize ?? 10_000;
  const verified =
    cacheSize > 0
      ? new LRUCache<string, Ok<Principal, never>>({
          max: cacheSize,
          maxSize: options.cacheMaxBytes ?? 16 * 1024 * 1024,
          sizeCalculation: cachedBytes,
        })
      : undefined;

  const verifySignature = (token: string) =>
    ResultAsync.fromPromise(
      typeof key === 'function'
        ? jwtVerify(token, key, verifyOptions)
        : jwtVerify(token, key, verifyOptions),
      describeFailure,
    );

  return {
    verify(token) {
      // A token verified before is answered at once.
      const known = verified?.get(token, CACHE_GET);
      if (known !== undefined) return known;
      return verifySignature(token).andThen(({ payload }) => {
        // jose checks iat only against a maximum age; a token issued in the future is refused.
        if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + toleranceSeconds) {
          return errAsync(rejected('not-yet-valid', 'The access token is issued in the future'));
        }
        const scopes = scopesOf(payload, scopeClaim);
        const restaurants = restaurantsOf(payload, restaurantsClaim);
        if (scopes === undefined) {
          return errAsync(rejected('claim', `The ${scopeClaim} claim is malformed`));
        }
        if (restaurants === undefined) {
          return errAsync(
            rejected('claim', `The ${restaurantsClaim} claim must list restaurant GUIDs or "*"`),
          );
        }
        const principal: Principal = {
          scopes,
          restaurants,
          ...(payload.sub === undefined ? {} : { subject: payload.sub }),
        };
        // exp is required, so the entry always ends when the token does.
        const ttl = ((payload.exp ?? 0) + toleranceSeconds) * 1000 - Date.now();
        if (ttl > 0) verified?.set(token, ok(principal), { ttl });
        return okAsync(principal);
      });
    },
  };
}
