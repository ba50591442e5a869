import { parse as parseQuery } from 'node:querystring';
import type { ApiOperation, ApiPath } from './operations.js';

/** A request of one of the API's operations, as routing found it: its URL parsed, once. */
export interface OperationMatch {
  readonly kind: 'operation';
  readonly operation: ApiOperation;
  /** The path parameters, percent-decoded (one that does not decode, as sent). */
  readonly params: Readonly<Record<string, string>>;
  /** A parameter the spec constrains whose segment does not percent-decode: a 400. */
  readonly undecodable: string | undefined;
  /** The query parameters, as parsed (a repeated one is an array; none, an empty object). */
  readonly query: Readonly<Record<string, unknown>>;
}

/** What a request's method and path name in the API. */
export type RouteMatch =
  | OperationMatch
  /** A path of the API that does not answer this method: 405 with `Allow`. */
  | { readonly kind: 'method-not-allowed'; readonly allow: string }
  /** Under the API's prefixes, but no path of it: 404. */
  | { readonly kind: 'not-found' };

/** Matches a request's method and URL (its path and query, as sent) to the API; `undefined` when the path is not under its prefixes (the host's). */
export type RouteTable = (method: string, url: string) => RouteMatch | undefined;

interface CompiledPath {
  /** The template's segments; a parameter's is `undefined`, with its name in `names`. */
  readonly literals: readonly (string | undefined)[];
  readonly names: readonly (string | undefined)[];
  readonly allow: string;
  readonly byMethod: ReadonlyMap<string, ApiOperation>;
}

const NOT_FOUND: RouteMatch = { kind: 'not-found' };
const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});

/** The most segments a routed path has; a longer one is no path of the API (no template is as long). */
const MAX_SEGMENTS = 32;

function decoded(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The routing of the API, compiled once from the spec's paths: a URL's path (the query parsed
 * apart, for an operation's request) matches a template segment for segment, case-sensitive, each parameter one non-empty segment (percent-decoded after the
 * split, so `%2F` stays inside its parameter), no trailing or doubled slash. HEAD is answered as
 * GET. A path under the prefixes that matches no template is the API's 404; a path outside them
 * is left to the host.
 *
 * @example
 * ```ts
 * const route = routeTable(operations, pathsOf(operations), prefixesOf(operations));
 * route('GET', '/labor/v1/shifts/POS%3A42?x=1'); // { kind: 'operation', params: { shiftId: 'POS:42' }, query: { x: '1' }, … }
 * ```
 */
export function routeTable(
  operations: readonly ApiOperation[],
  paths: readonly ApiPath[],
  prefixes: readonly string[],
): RouteTable {
  const compiled = new Map<number, CompiledPath[]>();
  for (const { template, allow } of paths) {
    const segments = template.split('/');
    const path: CompiledPath = {
      literals: segments.map((segment) => (segment.startsWith('{') ? undefined : segment)),
      names: segments.map((segment) =>
        segment.startsWith('{') ? segment.slice(1, -1) : undefined,
      ),
      allow,
      byMethod: new Map(
        operations.filter((op) => op.path === template).map((op) => [op.method, op] as const),
      ),
    };
    compiled.set(segments.length, [...(compiled.get(segments.length) ?? []), path]);
  }
  const owned = prefixes.map((prefix) => [prefix, `${prefix}/`] as const);

  return (method, url) => {
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    let under = false;
    for (const [prefix, withSlash] of owned) {
      if (path.startsWith(withSlash) || path === prefix) {
        under = true;
        break;
      }
    }
    if (!under) return undefined;
    const count = segmentBounds(path);
    for (const candidate of compiled.get(count) ?? []) {
      if (!matches(candidate, path, count)) continue;
      const operation = candidate.byMethod.get(method === 'HEAD' ? 'GET' : method);
      if (operation === undefined) return { kind: 'method-not-allowed', allow: candidate.allow };
      const params: Record<string, string> = {};
      let undecodable: string | undefined;
      for (let i = 0; i < count; i++) {
        const name = candidate.names[i];
        if (name === undefined) continue;
        const raw = path.slice(BOUNDS[i] as number, (BOUNDS[i + 1] as number) - 1);
        const value = decoded(raw);
        // Taken as sent; refused (after the token is checked) where the spec constrains it.
        if (value === undefined && !operation.unconstrainedParams.has(name)) undecodable ??= name;
        params[name] = value ?? raw;
      }
      const query = queryAt < 0 ? NO_QUERY : parseQuery(url.slice(queryAt + 1));
      return { kind: 'operation', operation, params, undecodable, query };
    }
    return NOT_FOUND;
  };
}

/**
 * Where each segment of the path being routed starts: segment `i` is `path.slice(BOUNDS[i],
 * BOUNDS[i + 1] - 1)`. Routing is synchronous, so one array serves every request, and the path is
 * matched where it lies rather than split into new strings.
 */
const BOUNDS = new Int32Array(MAX_SEGMENTS + 1);

/** Finds the path's segments (into {@link BOUNDS}); their count, or 0 past {@link MAX_SEGMENTS}. */
function segmentBounds(path: string): number {
  let count = 0;
  BOUNDS[0] = 0;
  for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) {
    if (++count >= MAX_SEGMENTS) return 0;
    BOUNDS[count] = at + 1;
  }
  BOUNDS[++count] = path.length + 1;
  return count;
}

/** Whether a path's segments fit a template: its literals as they are, a non-empty segment for each parameter. */
function matches(candidate: CompiledPath, path: string, count: number): boolean {
  for (let i = 0; i < count; i++) {
    const start = BOUNDS[i] as number;
    const length = (BOUNDS[i + 1] as number) - 1 - start;
    const literal = candidate.literals[i];
    if (literal === undefined) {
      if (length === 0) return false;
    } else if (literal.length !== length || !path.startsWith(literal, start)) {
      return false;
    }
  }
  return true;
}
