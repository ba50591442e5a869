// The rules a response is held to, each with a name the report shows, and the checks of an answer
// against what the spec documents for its operation: status, media type, headers, body schema,
// problem code, request id.
import { headerOf, type WireRequest, type WireResponse } from './http-client.js';
import {
  documentedCodes,
  fromText,
  onWire,
  type Spec,
  type SpecOperation,
  type SpecResponse,
} from './spec-reader.js';

/** The rules of the contract the kit checks, by name. */
export const RULES = {
  'no-server-error': 'no request is answered with a 5xx',
  'documented-status': 'the status is one the spec documents for the operation',
  'documented-headers': "the response headers match the documented response's headers",
  'documented-media-type': 'the media type is one the spec documents for the status',
  'documented-body': "the body matches the documented response's schema",
  'documented-code': "a problem's code is one the spec lists for that status",
  'problem-details': "a problem's status and requestId are the response's status and X-Request-Id",
  'request-id': 'every response carries X-Request-Id, the client’s own when it is sane',
  'valid-accepted': 'a valid, authorized request is not refused for its form or credentials',
  'invalid-refused': 'invalid input is refused with the documented 4xx and code',
  'error-path': 'a validation failure names the offending input in errors[].path',
  'unchanged-by-refusal': 'a refused request changes nothing',
  'default-parameter': 'an optional parameter sent with its default is answered as left out',
  'method-not-allowed': 'a known path with a method it does not support is 405 with Allow',
  'unknown-path': 'a path under the API that names no operation is 404 NOT_FOUND',
  'unarchive-archived': 'unarchive of an archived employee is 200 with deleted false (state table)',
  'unarchive-unarchived': 'unarchive of an unarchived employee is 400 EMPLOYEE_NOT_ARCHIVED',
  'archive-unarchived': 'archive of an unarchived employee is 200 with deleted true',
  'archive-archived': 'archive of an archived employee is 200 with the record unchanged',
  'delete-shift': 'delete of a shift is 200 with deleted true',
  'delete-deleted-shift': 'delete of a deleted shift is 200 with the record unchanged',
  'record-fields':
    "a record's fields are the seed's (jobs and wage overrides kept, no passcode); dates per the state tables",
  'deleted-date': 'deletedDate is present exactly when deleted is true',
  'not-found': 'an identifier that names no record of the context restaurant is 404',
  'malformed-identifier': 'an identifier that the operation does not take is 400 VALIDATION_FAILED',
  'restaurant-read':
    'getRestaurant answers the context restaurant as seeded; 404 when archived unless includeArchived=true',
  'invalid-token':
    'a missing or bad token is 401 with WWW-Authenticate: Bearer error="invalid_token"',
  'insufficient-scope':
    'a token without the scope is 403 INSUFFICIENT_SCOPE (error="insufficient_scope")',
  'restaurant-not-permitted':
    'a token for other restaurants than the context is 403 RESTAURANT_NOT_PERMITTED',
  'other-restaurant-invisible':
    "a record of another restaurant is invisible in this one's context: 404, never read or changed",
  'no-reveal': "no answer in one restaurant's context mentions another restaurant's records",
  'target-available': 'the target answers (within the time and rate limits given)',
} as const;

/** The name of a rule a response is checked against: a key of {@link RULES}. */
export type RuleName = keyof typeof RULES;

/** A broken rule. */
export class Violation extends Error {
  override readonly name = 'Violation';
  constructor(
    readonly rule: RuleName,
    /** What happened, without the rule. */
    readonly detail: string,
  ) {
    super(`[${rule}] ${RULES[rule]}: ${detail}`);
  }
}

export function fail(rule: RuleName, message: string): never {
  throw new Violation(rule, message);
}

export function check(condition: boolean, rule: RuleName, message: () => string): void {
  if (!condition) fail(rule, message());
}

/** A request and its answer, short, for messages. */
export function show(req: WireRequest, res: WireResponse): string {
  const body = req.body === undefined ? '' : ` ${JSON.stringify(req.body.slice(0, 80))}`;
  return `${req.method} ${req.path}${body} -> ${res.status} ${res.text.slice(0, 300)}`;
}

export interface ProblemBody {
  readonly status?: unknown;
  readonly code?: unknown;
  readonly requestId?: unknown;
  readonly errors?: readonly { readonly path?: unknown }[];
}

/** The parsed JSON body, or undefined. */
export function jsonOf(res: WireResponse): unknown {
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    return undefined;
  }
}

export function problemOf(res: WireResponse): ProblemBody {
  const body = jsonOf(res);
  return body !== null && typeof body === 'object' ? (body as ProblemBody) : {};
}

/** The client's X-Request-Id is reused when printable ASCII of at most 128 characters. */
function checkRequestId(req: WireRequest, res: WireResponse): void {
  const id = headerOf(res, 'X-Request-Id');
  check(Boolean(id), 'request-id', () => `no X-Request-Id: ${show(req, res)}`);
  const sentName = Object.keys(req.headers).find((name) => name.toLowerCase() === 'x-request-id');
  if (sentName === undefined) return;
  const sent = onWire(req.headers[sentName] ?? '');
  const sane = sent !== '' && sent.length <= 128 && /^[\x20-\x7e]+$/.test(sent);
  check(
    sane ? id === sent : id !== sent,
    'request-id',
    () =>
      `sent ${JSON.stringify(sent)}, answered ${JSON.stringify(id)} (${sane ? 'must be reused' : 'must be replaced'})`,
  );
}

/** The answer matches a documented response: headers, media type, body schema, problem code. */
export function checkMatches(
  spec: Spec,
  response: SpecResponse,
  req: WireRequest,
  res: WireResponse,
): void {
  const where = () => show(req, res);
  for (const [name, header] of response.headers) {
    const value = headerOf(res, name);
    if (header.required) {
      check(value !== undefined, 'documented-headers', () => `${name} is missing: ${where()}`);
    }
    if (value !== undefined) {
      const errors = spec.validator.errors(header.schema, fromText(header.schema, value));
      check(
        errors.length === 0,
        'documented-headers',
        () => `${name}: ${errors.join('; ')}: ${where()}`,
      );
    }
  }
  checkRequestId(req, res);
  if (req.method === 'HEAD') {
    check(res.text === '', 'documented-body', () => `a HEAD answer has a body: ${where()}`);
    return;
  }
  if (response.content.size === 0) {
    check(res.text === '', 'documented-body', () => `no body is documented: ${where()}`);
    return;
  }
  const mediaType = (headerOf(res, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const schema = response.content.get(mediaType);
  if (schema === undefined) {
    fail('documented-media-type', `${JSON.stringify(mediaType)} is not documented: ${where()}`);
  }
  const body = jsonOf(res);
  check(body !== undefined, 'documented-body', () => `the body is not JSON: ${where()}`);
  const errors = spec.validator.errors(schema, body);
  check(errors.length === 0, 'documented-body', () => `${errors.join('; ')}: ${where()}`);
  if (res.status >= 400) {
    const problem = body as ProblemBody;
    check(
      documentedCodes(spec, schema).includes(String(problem.code)),
      'documented-code',
      () => `${String(problem.code)} is not listed for ${res.status}: ${where()}`,
    );
    check(problem.status === res.status, 'problem-details', () => `status differs: ${where()}`);
    check(
      problem.requestId === headerOf(res, 'X-Request-Id'),
      'problem-details',
      () => `requestId is not the X-Request-Id header: ${where()}`,
    );
  }
}

/** Below 500, documented for `operation`, and as documented. */
export function checkDocumented(
  spec: Spec,
  operation: SpecOperation,
  req: WireRequest,
  res: WireResponse,
): void {
  check(res.status < 500, 'no-server-error', () => show(req, res));
  const response = operation.responses.get(String(res.status));
  if (response === undefined) {
    fail(
      'documented-status',
      `${res.status} is not documented for ${operation.id}: ${show(req, res)}`,
    );
  }
  checkMatches(spec, response, req, res);
}

/** The answer is `status` with problem `code`. */
export function checkProblem(
  rule: RuleName,
  req: WireRequest,
  res: WireResponse,
  status: number,
  code: string,
): void {
  check(res.status === status, rule, () => `expected ${status} ${code}: ${show(req, res)}`);
  if (req.method !== 'HEAD') {
    const got = problemOf(res).code;
    check(got === code, rule, () => `expected code ${code}: ${show(req, res)}`);
  }
}
