// Test support: JWTs of any shape, including the ones jose refuses to make.
import { createHmac } from 'node:crypto';

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
