import type { MaybeAsync } from '@workforce-kit/core';
import type { Result } from 'neverthrow';

/** Who a verified access token speaks for. */
export interface Principal {
  /** The token's `sub`, for logs. */
  readonly subject?: string;
  /** The scopes the token grants. */
  readonly scopes: ReadonlySet<string>;
  /** The restaurant GUIDs (lower case) the client may act for, or `'all'`. */
  readonly restaurants: ReadonlySet<string> | 'all';
}

/** What is wrong with a refused token, for code that adds to its description. */
export type TokenRejectedReason =
  | 'expired'
  | 'not-yet-valid'
  | 'claim'
  | 'algorithm'
  | 'signature'
  | 'malformed';

/** Why a token was refused: 401 `INVALID_TOKEN`. `description` is safe to show the client. */
export interface TokenRejected {
  readonly type: 'TokenRejected';
  readonly description: string;
  /** What is wrong with it, when the verifier tells (`createJwtVerifier` always does). */
  readonly reason?: TokenRejectedReason;
}

/** The keys to verify tokens could not be had (a JWKS endpoint down): 503 `AUTH_UNAVAILABLE`. */
export interface VerifierUnavailable {
  readonly type: 'VerifierUnavailable';
  readonly cause?: unknown;
}

/**
 * Verifies bearer access tokens. Use {@link createJwtVerifier}, or bring your own (an opaque-token
 * introspection, a gateway's headers). It must not throw.
 *
 * @example
 * ```ts
 * const verifier: AccessTokenVerifier = {
 *   verify: (token) => introspect(token).map((info) => ({ scopes: new Set(info.scopes), restaurants: 'all' })),
 * };
 * ```
 */
export interface AccessTokenVerifier {
  /**
   * The principal of a bearer token, or why it is refused (401), or that it cannot be checked now
   * (503): a `Result` when the answer is at hand (a token verified before), which lets the request
   * go on without a promise, or a promise of it (a `ResultAsync`).
   */
  verify(token: string): MaybeAsync<Result<Principal, TokenRejected | VerifierUnavailable>>;
}
