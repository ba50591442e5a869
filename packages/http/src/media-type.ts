import contentType from 'content-type';

/**
 * Whether a `Content-Type` is JSON in UTF-8, the one media type a body of the API may have:
 * `application/json` (in any case) with no charset or a UTF-8 one, parsed by RFC 9110's grammar.
 * A header that does not parse (`application/json;`, `application/json; charset`, an unclosed
 * quote) is not; neither is a JSON suffix type (`application/merge-patch+json`). Every adapter
 * decides its 415 with this one function.
 *
 * @param header - the request's `Content-Type`, as sent
 * @example
 * ```ts
 * isJsonMediaType('application/json; charset="UTF-8"'); // true
 * isJsonMediaType('application/json; charset=latin1'); // false
 * ```
 */
export function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  // The forms clients send, taken without parsing (the parser makes objects of each header).
  if (header === 'application/json' || header === 'application/json; charset=utf-8') return true;
  try {
    const parsed = contentType.parse(header);
    const charset = parsed.parameters.charset?.toLowerCase();
    return parsed.type === 'application/json' && (charset === undefined || charset === 'utf-8');
  } catch {
    return false;
  }
}
