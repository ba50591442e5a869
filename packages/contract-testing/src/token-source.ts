// Access tokens for the target: minted here (HS256, with the target's secret, issuer and
// audience), asked of a command (for targets whose keys the kit cannot hold), or of a function.
// Also the bad tokens the auth property sends: each kind the key source allows forging.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';

/** What a token grants: scopes, and the restaurants it may act for (`'*'`: all). */
export interface Grant {
  readonly scopes: readonly string[];
  readonly restaurants: readonly string[] | '*';
}

/** Claim names (docs/contract.md, "Authentication"): configurable, as the router's are. */
interface ClaimNames {
  /** @default 'scope' */
  readonly scopeClaim?: string;
  /** @default 'restaurants' */
  readonly restaurantsClaim?: string;
}

/**
 * How the kit gets tokens for the target:
 * - `hs256Secret` (with the `issuer` and `audience` the target requires): minted here; every bad
 *   token of the auth property can then be made;
 * - `tokenCommand`: a shell command that prints a token; it gets the grant in the environment as
 *   `CONTRACT_SCOPES` (space-separated) and `CONTRACT_RESTAURANTS` (comma-separated GUIDs, or `*`);
 * - `token`: a function of the grant (library use).
 *
 * Without the key, the kit cannot make an expired token, one not yet valid, or one of another
 * issuer or audience: those checks are reported as not run.
 */
export type AuthOptions =
  | (ClaimNames & {
      readonly hs256Secret: string;
      readonly issuer?: string;
      readonly audience?: string;
    })
  | { readonly tokenCommand: string }
  | {
      /** A token for the grant: its scopes and restaurants (a target whose keys the kit cannot hold). */
      readonly token: (grant: Grant) => string | Promise<string>;
    };

/** The ways a token can be bad; each must be answered 401 `invalid_token`. */
export const BAD_TOKEN_KINDS = [
  'missing',
  'malformed',
  'expired',
  'not-yet-valid',
  'wrong-issuer',
  'wrong-audience',
  'wrong-key',
  'alg-none',
  'tampered',
] as const;
export type BadTokenKind = (typeof BAD_TOKEN_KINDS)[number];

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** A JWT over `claims`; `none` has no signature. */
export function signJwt(
  claims: Readonly<Record<string, unknown>>,
  secret: string,
  alg: 'HS256' | 'none' = 'HS256',
): string {
  const input = `${base64url(JSON.stringify({ alg, typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  if (alg === 'none') return `${input}.`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const LIFETIME_SECONDS = 900;
/** Tokens remembered at most: the kit's memory does not grow with the grants it has used. */
const TOKEN_CACHE_SIZE = 256;
/** A secret the target does not hold. */
const WRONG_SECRET = 'workforce-kit-contract-wrong-key-0123456789abcdef';

export interface TokenSource {
  /** A valid token for `grant` (the tokens of the last 256 grants are remembered a few minutes). */
  token(grant: Grant): Promise<string>;
  /** The `Authorization` header value of a bad token of `kind`, or undefined when it cannot be made. */
  badAuthorization(kind: BadTokenKind, variant: number): Promise<string | undefined>;
}

function runCommand(command: string, grant: Grant): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', command],
      {
        env: {
          ...process.env,
          CONTRACT_SCOPES: grant.scopes.join(' '),
          CONTRACT_RESTAURANTS: grant.restaurants === '*' ? '*' : grant.restaurants.join(','),
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the token command failed: ${error.message}\n${stderr}`));
        else resolve(stdout.trim());
      },
    );
  });
}

const MALFORMED = [
  '',
  'Bearer',
  'Bearer ',
  'Basic d29ya2ZvcmNlOmtpdA==',
  'Token abc.def.ghi',
  'Bearer a b',
  'Bearer not.a.jwt',
  'Bearer eyJhbGciOiJIUzI1NiJ9',
];

export function createTokenSource(auth: AuthOptions, allScopes: readonly string[]): TokenSource {
  const cache = new Map<string, { token: string; until: number }>();
  const claimsOf = (grant: Grant, names: ClaimNames = {}) => ({
    [names.scopeClaim ?? 'scope']: grant.scopes.join(' '),
    [names.restaurantsClaim ?? 'restaurants']: grant.restaurants,
    iat: nowSeconds(),
    exp: nowSeconds() + LIFETIME_SECONDS,
  });
  const mint = async (grant: Grant): Promise<string> => {
    if ('hs256Secret' in auth) {
      return signJwt(
        {
          ...claimsOf(grant, auth),
          ...(auth.issuer === undefined ? {} : { iss: auth.issuer }),
          ...(auth.audience === undefined ? {} : { aud: auth.audience }),
        },
        auth.hs256Secret,
      );
    }
    if ('tokenCommand' in auth) return runCommand(auth.tokenCommand, grant);
    return auth.token(grant);
  };
  const token = async (grant: Grant): Promise<string> => {
    const key = JSON.stringify([grant.scopes, grant.restaurants]);
    const known = cache.get(key);
    if (known !== undefined && known.until > Date.now()) return known.token;
    const made = await mint(grant);
    // The grants vary (a restaurant in any letter case): the oldest token makes room for a new one.
    cache.delete(key);
    if (cache.size >= TOKEN_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, { token: made, until: Date.now() + 5 * 60_000 });
    return made;
  };
  // Bad tokens carry every scope: a target that let one through would act on it.
  const all: Grant = { scopes: allScopes, restaurants: '*' };
  /** The claims of a valid token, re-signed or altered to make a bad one. */
  const validClaims = async (): Promise<Record<string, unknown>> => {
    const valid = await token(all);
    try {
      return JSON.parse(Buffer.from(valid.split('.')[1] ?? '', 'base64url').toString('utf8'));
    } catch {
      return claimsOf(all);
    }
  };
  return {
    token,
    async badAuthorization(kind, variant) {
      const secret = 'hs256Secret' in auth ? auth.hs256Secret : undefined;
      switch (kind) {
        case 'missing':
          return undefined;
        case 'malformed':
          return MALFORMED[variant % MALFORMED.length];
        case 'wrong-key':
          return `Bearer ${signJwt(await validClaims(), WRONG_SECRET)}`;
        case 'alg-none':
          return `Bearer ${signJwt(await validClaims(), '', 'none')}`;
        case 'tampered': {
          // A valid token whose payload was swapped afterwards: the signature no longer matches.
          const [header, , signature] = (await token(all)).split('.');
          const claims = { ...(await validClaims()), restaurants: '*', extra: variant };
          return `Bearer ${header}.${base64url(JSON.stringify(claims))}.${signature}`;
        }
        default:
          break;
      }
      if (secret === undefined || !('hs256Secret' in auth)) return undefined;
      const claims = await validClaims();
      const altered: Record<string, unknown> = { ...claims };
      if (kind === 'expired') {
        altered.iat = nowSeconds() - 7200;
        altered.exp = nowSeconds() - 3600;
      } else if (kind === 'not-yet-valid') altered.nbf = nowSeconds() + 3600;
      else if (kind === 'wrong-issuer') altered.iss = `${auth.issuer ?? 'issuer'}-not`;
      else if (kind === 'wrong-audience') altered.aud = `${auth.audience ?? 'audience'}-not`;
      return `Bearer ${signJwt(altered, secret)}`;
    },
  };
}

/** Which bad tokens a key source can make. */
export function badTokenKindsFor(auth: AuthOptions): readonly BadTokenKind[] {
  if ('hs256Secret' in auth) {
    return BAD_TOKEN_KINDS.filter(
      (kind) =>
        (kind !== 'wrong-issuer' || auth.issuer !== undefined) &&
        (kind !== 'wrong-audience' || auth.audience !== undefined),
    );
  }
  return ['missing', 'malformed', 'wrong-key', 'alg-none', 'tampered'];
}
