/** Query parameters that carry credentials: their values never reach a log. */
const CREDENTIAL_PARAMETERS =
  /^(?:access_token|id_token|refresh_token|token|client_secret|password|secret|api_?key|code|authorization)$/i;

/**
 * A request URL as it may be logged: the path as sent, and the query string with the value of
 * every credential parameter (`access_token`, `client_secret`, …) replaced by `[redacted]`.
 *
 * @example
 * ```ts
 * redactedUrl('/labor/v1/shifts/A:1?access_token=eyJ…&x=1'); // '/labor/v1/shifts/A:1?access_token=[redacted]&x=1'
 * ```
 */
export function redactedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const pairs = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        name = rawName;
      }
      return CREDENTIAL_PARAMETERS.test(name.trim()) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${pairs.join('&')}`;
}
