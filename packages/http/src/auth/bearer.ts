/** `Authorization: Bearer <token>` (RFC 6750): the scheme in any case, a token68 value. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The bearer token of an Authorization header, or `undefined`. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
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
