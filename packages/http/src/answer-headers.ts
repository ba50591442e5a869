/** The `RateLimit-*` values of an answer, as its headers carry them (a rate-limit decision's). */
export interface RateLimitValues {
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
}

/** The headers the API sets itself, which the host's `responseHeaders` cannot replace. */
const API_HEADERS: ReadonlySet<string> = new Set([
  'allow',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'www-authenticate',
  'x-content-type-options',
  'x-request-id',
]);

/** A list of headers made once, and where each value of an answer's own goes in a copy of it. */
interface HeaderTemplate {
  readonly list: readonly string[];
  readonly requestId: number;
  /** The `RateLimit-*` values' places; -1 in the list of an answer without them. */
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  readonly type: number;
  readonly length: number;
}

/** A template of `everyAnswer`, then a named slot per value an answer fills in. */
function templateOf(everyAnswer: readonly string[], withLimits: boolean): HeaderTemplate {
  const list = [...everyAnswer];
  const slot = (name: string): number => {
    list.push(name, '');
    return list.length - 1;
  };
  const requestId = slot('X-Request-Id');
  const limit = withLimits ? slot('RateLimit-Limit') : -1;
  const remaining = withLimits ? slot('RateLimit-Remaining') : -1;
  const reset = withLimits ? slot('RateLimit-Reset') : -1;
  return {
    list,
    requestId,
    limit,
    remaining,
    reset,
    type: slot('Content-Type'),
    length: slot('Content-Length'),
  };
}

/**
 * The headers of the API's answers, assembled in one place: the host's `responseHeaders` (but
 * those the API sets itself, in any letter case), `Cache-Control: no-store` and `nosniff` (answers
 * carry personal data), the request id, the rate limits' `RateLimit-*` once they are counted, the
 * body's type and length, then the answer's own (`Retry-After`, `WWW-Authenticate`, `Allow`). The
 * lists are made once; an answer copies one and fills in its values, as the flat list Node's
 * `writeHead` takes.
 */
export class AnswerHeaders {
  readonly #plain: HeaderTemplate;
  readonly #limited: HeaderTemplate;

  /** @param responseHeaders - the host's headers on every answer */
  constructor(responseHeaders: Readonly<Record<string, string>>) {
    const everyAnswer = [
      ...Object.entries(responseHeaders).filter(([name]) => !API_HEADERS.has(name.toLowerCase())),
      ['Cache-Control', 'no-store'],
      ['X-Content-Type-Options', 'nosniff'],
    ].flat();
    this.#plain = templateOf(everyAnswer, false);
    this.#limited = templateOf(everyAnswer, true);
  }

  /**
   * The headers of one answer.
   *
   * @param limits - the request's rate-limit decision, once counted
   * @param length - the body's length in bytes, as text
   * @param own - the answer's own headers (a problem's)
   */
  of(
    requestId: string,
    limits: RateLimitValues | undefined,
    type: string,
    length: string,
    own: Readonly<Record<string, string>> | undefined,
  ): string[] {
    const template = limits === undefined ? this.#plain : this.#limited;
    // Made in one piece: pushing a problem's own headers onto a copy would grow it again.
    const headers = own === undefined ? template.list.slice() : template.list.concat(flatList(own));
    headers[template.requestId] = requestId;
    if (limits !== undefined) {
      headers[template.limit] = limits.limit;
      headers[template.remaining] = limits.remaining;
      headers[template.reset] = limits.reset;
    }
    headers[template.type] = type;
    headers[template.length] = length;
    return headers;
  }
}

/** Headers as a flat list of names and values. */
function flatList(headers: Readonly<Record<string, string>>): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name] as string);
  return list;
}
