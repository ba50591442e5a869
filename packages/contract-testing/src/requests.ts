// The requests the kit sends, before they go on the wire and as they go: a draft (an operation's
// parameter values, a grant, a media type and a body, generated from the spec) and a call (one
// request of the state tables, as the model sees it), each turned into a wire request.
import { REQUEST_ID_HEADER } from './call-events.js';
import type { Engine } from './engine.js';
import type { WireRequest } from './http-client.js';
import { onWire, type SpecOperation, type SpecParameter } from './spec-reader.js';
import {
  contextHeaderOf,
  flagOf,
  pathParameterOf,
  type Role,
  roleOf,
} from './state-table-operations.js';
import type { Grant } from './token-source.js';

/** A parameter value as sent: percent-encoded in its place, or `raw`, as is, in a path. */
export interface Value {
  readonly text: string;
  readonly raw?: true;
}

/** A request of an operation before it is put on the wire. */
export interface Draft {
  readonly operation: SpecOperation;
  readonly method: string;
  readonly values: ReadonlyMap<SpecParameter, Value>;
  readonly extraQuery: readonly (readonly [string, string])[];
  readonly grant: Grant;
  readonly scheme: string;
  readonly contentType: string | undefined;
  readonly body: string | undefined;
  /** Which letters of header names to send in upper case (names are case-insensitive). */
  readonly nameCase: readonly boolean[];
  /** Which characters of path and query values to percent-encode though they need not be. */
  readonly overEncode: readonly boolean[] | undefined;
}

/** One request of the state tables, as the model sees it. */
export interface Call {
  readonly role: Role;
  /** The context header's value as sent (any letter case). */
  readonly context: string;
  readonly grant: Grant;
  /** The path parameter's value as sent, before percent-encoding. */
  readonly id: string;
  readonly includeArchived?: 'true' | 'false';
  /** Send the `:` of an external id unencoded (the same value). */
  readonly rawColon?: boolean;
}

/**
 * Percent-encodes `text` for a path segment or a query value; the characters `mask` marks are
 * encoded even when they need not be, in upper or lower case hex: the same value (RFC 3986).
 */
function percentEncode(text: string, mask: readonly boolean[] | undefined): string {
  if (mask === undefined) return encodeURIComponent(text);
  return [...text]
    .map((char, i) => {
      if (!mask[i]) return encodeURIComponent(char);
      const hex = Buffer.from(char, 'utf8').toString('hex');
      return (i % 2 === 0 ? hex.toUpperCase() : hex).replace(/(..)/g, '%$1');
    })
    .join('');
}

const withCase = (name: string, upper: readonly boolean[]) =>
  [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('');

/** `draft` with `p` set to `value`, or left out when `value` is undefined. */
export const setValue = (draft: Draft, p: SpecParameter, value: Value | undefined): Draft => {
  const values = new Map(draft.values);
  if (value === undefined) values.delete(p);
  else values.set(p, value);
  return { ...draft, values };
};

/** A draft as a request, its `Authorization` header's value given. */
function draftRequest(draft: Draft, authorization: string): WireRequest {
  const { operation } = draft;
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = operation.parameters.find((q) => q.in === 'path' && q.name === name);
    const value = p === undefined ? undefined : draft.values.get(p);
    if (value === undefined) throw new Error(`no value for path parameter ${name}`);
    return value.raw ? value.text : percentEncode(value.text, draft.overEncode);
  });
  const query = [
    ...operation.parameters.flatMap((p) => {
      const value = p.in === 'query' ? draft.values.get(p) : undefined;
      return value === undefined ? [] : [[p.name, value.text] as const];
    }),
    ...draft.extraQuery,
  ]
    .map(([name, text]) => `${encodeURIComponent(name)}=${percentEncode(text, draft.overEncode)}`)
    .join('&');
  const headers: Record<string, string> = {};
  for (const p of operation.parameters) {
    const value = p.in === 'header' ? draft.values.get(p) : undefined;
    if (value !== undefined) headers[withCase(p.name, draft.nameCase)] = value.text;
  }
  headers.Authorization = authorization;
  if (draft.contentType !== undefined) headers['Content-Type'] = draft.contentType;
  if (draft.body !== undefined || operation.requestMediaTypes !== undefined) {
    headers['Content-Length'] = String(Buffer.byteLength(draft.body ?? ''));
  }
  return {
    method: draft.method,
    path: query === '' ? path : `${path}?${query}`,
    headers,
    ...(draft.body === undefined ? {} : { body: draft.body }),
  };
}

/** A draft on the wire. */
export async function draftToWire(engine: Engine, draft: Draft): Promise<WireRequest> {
  return draftRequest(draft, `${draft.scheme}${await engine.tokens.token(draft.grant)}`);
}

/** What a token grants, as far as `op` cares: its scope, and the restaurants. */
export function grantText(op: SpecOperation, grant: Grant): string {
  const restaurants =
    grant.restaurants === '*'
      ? 'every restaurant'
      : grant.restaurants.length === 0
        ? 'no restaurant'
        : grant.restaurants.join(', ');
  return `a token ${grant.scopes.includes(op.scope) ? 'with' : 'without'} ${op.scope}, for ${restaurants}`;
}

/** A header's value or a body as printed: as is when plain, else quoted with its escapes. */
const plainOr = (text: string) =>
  /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(text) ? text : JSON.stringify(text);

/**
 * A request as an HTTP call on one line, for a counterexample: the method, the path as sent, the
 * headers (the token described, not shown) and the body.
 */
export function httpCallText(req: WireRequest): string {
  const headers = Object.entries(req.headers)
    .filter(([name]) => name.toLowerCase() !== 'content-length')
    .map(([name, value]) =>
      name.toLowerCase() === 'authorization' ? `${name}: ${value}` : `${name}: ${plainOr(value)}`,
    );
  const body =
    req.body === undefined || req.body === ''
      ? []
      : [`body ${plainOr(req.body.length > 80 ? `${req.body.slice(0, 77)}…` : req.body)}`];
  return [`${req.method} ${req.path}`, ...headers, ...body].join(' | ');
}

/** A draft as fast-check prints it in a counterexample: the HTTP call. */
export function showDraft(draft: Draft): string {
  return httpCallText(
    draftRequest(draft, `${draft.scheme}(${grantText(draft.operation, draft.grant)})`),
  );
}

/** The context header's value as the server reads it, when the draft sends one. */
export function contextOfDraft(draft: Draft): string | undefined {
  const header = contextHeaderOf(draft.operation);
  const value = header === undefined ? undefined : draft.values.get(header);
  return value === undefined ? undefined : onWire(value.text);
}

/** The state-table call a draft is, when it is one (for the knowledge and the probes). */
export function callOfDraft(draft: Draft): Call | undefined {
  const role = roleOf(draft.operation);
  const context = contextOfDraft(draft);
  const pathParameter = draft.operation.parameters.find((p) => p.in === 'path');
  const id = pathParameter === undefined ? undefined : draft.values.get(pathParameter);
  if (role === undefined || context === undefined || id === undefined || id.raw) return undefined;
  const flag = flagOf(draft.operation);
  const includeArchived = flag === undefined ? undefined : draft.values.get(flag)?.text;
  return {
    role,
    context,
    grant: draft.grant,
    id: id.text,
    ...(includeArchived === 'true' || includeArchived === 'false' ? { includeArchived } : {}),
  };
}

/** A call as a request, its `Authorization` header's value given. */
function callRequest(engine: Engine, call: Call, authorization: string): WireRequest {
  const op = engine.operations[call.role];
  const param = pathParameterOf(op);
  let segment = encodeURIComponent(call.id);
  if (call.rawColon) segment = segment.replaceAll('%3A', ':');
  const flag = flagOf(op);
  const query =
    flag !== undefined && call.includeArchived !== undefined
      ? `?${encodeURIComponent(flag.name)}=${call.includeArchived}`
      : '';
  const headers: Record<string, string> = {
    Authorization: authorization,
    [contextHeaderOf(op)?.name ?? '']: call.context,
  };
  let body: string | undefined;
  const mediaType = op.requestMediaTypes?.[0];
  if (mediaType !== undefined) {
    headers['Content-Type'] = mediaType;
    body = '{}';
  }
  return {
    method: op.method,
    path: `${op.template.replace(`{${param.name}}`, segment)}${query}`,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}

/**
 * A call on the wire; when the kit checks events, with a request id of its own, which the call's
 * event must carry (and which names the call when no answer came).
 */
export async function callToWire(engine: Engine, call: Call): Promise<WireRequest> {
  const req = callRequest(engine, call, `Bearer ${await engine.tokens.token(call.grant)}`);
  const id = engine.events?.nextRequestId();
  return id === undefined ? req : { ...req, headers: { ...req.headers, [REQUEST_ID_HEADER]: id } };
}

/** A call's method and path as sent, for a counterexample whose calls share their headers. */
export function callLine(engine: Engine, call: Call): string {
  const { method, path } = callRequest(engine, call, '');
  return `${method} ${path}`;
}

/**
 * A call as an HTTP call on one line (see {@link httpCallText}); `authorization` describes the
 * token when it is not the call's own.
 */
export function showCall(engine: Engine, call: Call, authorization?: string): string {
  const op = engine.operations[call.role];
  return httpCallText(
    callRequest(engine, call, authorization ?? `Bearer (${grantText(op, call.grant)})`),
  );
}
