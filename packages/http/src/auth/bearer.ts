/** `Authorization: Bearer <token>` (RFC 6750): the scheme in any case, a token68 value. */
const BEARER = /^Bearer +[A-Za-z0-9\-._~+/]+=* *$/i;

/** The bearer token of an Authorization header, or `undefined`. */
export function bearerToken(header: string | undefined): string | undefined {
  // Checked with test, which makes no match object, then cut out: `Bearer`, spaces, the token,
  // spaces.
  if (header === undefined || !BEARER.test(header)) return undefined;
  let start = 7;
  while (header.charCodeAt(start) === 32) start++;
  let end = header.length;
  while (header.charCodeAt(end - 1) === 32) end--;
  return header.slice(start, end);
}

/**
 * The `WWW-Authenticate` challenge of a 401 (`invalid_token`) or 403 (`insufficient_scope`).
 * The description is fixed text of ours, never client input, so it needs no escaping.
 */
export function challenge(
  error: 'invalid_token' | 'insufficient_scope',
  description: string,
  scope?: string,
): string {
  const scopePart = scope === undefined ? '' : `, scope="${scope}"`;
  return `Bearer realm="workforce-kit", error="${error}", error_description="${description}"${scopePart}`;
}
