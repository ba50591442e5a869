// An answer held to what the spec documents for its operation: status, media type, headers, body
// schema, problem code, request id; and to the answer a property expects. Each rule an answer is
// checked against is counted once in the run's coverage, kept or broken.
import type { CoverageTally } from './coverage.js';
import { type Exchange, headerOf, type WireRequest, type WireResponse } from './http-client.js';
import { type RuleName, Violation } from './rules.js';
import {
  documentedCodes,
  fromText,
  onWire,
  type Spec,
  type SpecOperation,
  type SpecResponse,
} from './spec-reader.js';

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

/** Bodies parsed, by answer: several checks read each answer's body, which is parsed once. */
const parsedBodies = new WeakMap<WireResponse, unknown>();

/** The parsed JSON body, or undefined; one object per answer, which its readers never change. */
export function jsonOf(res: WireResponse): unknown {
  if (parsedBodies.has(res)) return parsedBodies.get(res);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  parsedBodies.set(res, body);
  return body;
}

/** The body as a problem: its fields, when it is a JSON object. */
export function problemOf(res: WireResponse): ProblemBody {
  const body = jsonOf(res);
  return body !== null && typeof body === 'object' ? body : {};
}

/** What checking an answer needs: the spec, and the run's tally. */
export interface CheckContext {
  readonly spec: Spec;
  readonly coverage: CoverageTally;
}

/**
 * One answer, held to rules: each check counts its rule once for this answer in the run's
 * coverage; a broken rule throws a {@link Violation}.
 */
export class Answer implements Exchange {
  private readonly counted = new Set<RuleName>();

  constructor(
    private readonly context: CheckContext,
    readonly request: WireRequest,
    readonly response: WireResponse,
  ) {}

  get status(): number {
    return this.response.status;
  }

  /** The request and the answer, short, for messages. */
  show(): string {
    return show(this.request, this.response);
  }

  /** Holds the answer to `rule`: throws unless `condition`. */
  check(condition: boolean, rule: RuleName, message: () => string = () => this.show()): void {
    if (!this.counted.has(rule)) {
      this.counted.add(rule);
      this.context.coverage.checked(rule);
    }
    if (!condition) throw new Violation(rule, message());
  }

  /** The answer is `status` with problem `code` (a HEAD answer has no body to hold the code). */
  problem(rule: RuleName, status: number, code: string): void {
    this.check(this.status === status, rule, () => `expected ${status} ${code}: ${this.show()}`);
    if (this.request.method !== 'HEAD') {
      const got = problemOf(this.response).code;
      this.check(got === code, rule, () => `expected code ${code}: ${this.show()}`);
    }
  }

  /** Below 500, a status documented for `operation`, and as documented. */
  documented(operation: SpecOperation): void {
    this.check(this.status < 500, 'no-server-error');
    const response = operation.responses.get(String(this.status));
    this.check(
      response !== undefined,
      'documented-status',
      () => `${this.status} is not documented for ${operation.id}: ${this.show()}`,
    );
    if (response !== undefined) this.matches(response);
  }

  /** The answer matches a documented response: headers, media type, body schema, problem code. */
  matches(response: SpecResponse): void {
    const { spec } = this.context;
    const res = this.response;
    for (const [name, header] of response.headers) {
      const value = headerOf(res, name);
      this.check(
        !header.required || value !== undefined,
        'documented-headers',
        () => `${name} is missing: ${this.show()}`,
      );
      if (value !== undefined) {
        const errors = spec.validator.errors(
          header.schema,
          fromText(header.schema, value),
          `the ${name} header`,
        );
        this.check(
          errors.length === 0,
          'documented-headers',
          () => `${errors.join('; ')}: ${this.show()}`,
        );
      }
    }
    this.requestId();
    if (this.request.method === 'HEAD' || response.content.size === 0) {
      const why =
        this.request.method === 'HEAD' ? 'a HEAD answer has a body' : 'no body is documented';
      this.check(res.text === '', 'documented-body', () => `${why}: ${this.show()}`);
      return;
    }
    const mediaType =
      (headerOf(res, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const schema = response.content.get(mediaType);
    this.check(
      schema !== undefined,
      'documented-media-type',
      () => `${JSON.stringify(mediaType)} is not documented: ${this.show()}`,
    );
    if (schema === undefined) return; // (check threw)
    const body = jsonOf(res);
    this.check(body !== undefined, 'documented-body', () => `the body is not JSON: ${this.show()}`);
    const errors = spec.validator.errors(schema, body);
    this.check(
      errors.length === 0,
      'documented-body',
      () => `${errors.join('; ')}: ${this.show()}`,
    );
    if (this.status >= 400) {
      const problem = problemOf(res);
      this.check(
        documentedCodes(spec, schema).includes(String(problem.code)),
        'documented-code',
        () => `${String(problem.code)} is not listed for ${this.status}: ${this.show()}`,
      );
      this.check(
        problem.status === this.status,
        'problem-details',
        () => `status differs: ${this.show()}`,
      );
      this.check(
        problem.requestId === headerOf(res, 'X-Request-Id'),
        'problem-details',
        () => `requestId is not the X-Request-Id header: ${this.show()}`,
      );
    }
  }

  /** The answer carries X-Request-Id: the client's own when printable ASCII of at most 128 characters. */
  private requestId(): void {
    const req = this.request;
    const id = headerOf(this.response, 'X-Request-Id');
    this.check(Boolean(id), 'request-id', () => `no X-Request-Id: ${this.show()}`);
    const sentName = Object.keys(req.headers).find((name) => name.toLowerCase() === 'x-request-id');
    if (sentName === undefined) return;
    const sent = onWire(req.headers[sentName] ?? '');
    const sane = sent !== '' && sent.length <= 128 && /^[\x20-\x7e]+$/.test(sent);
    this.check(
      sane ? id === sent : id !== sent,
      'request-id',
      () =>
        `sent ${JSON.stringify(sent)}, answered ${JSON.stringify(id)} (${sane ? 'must be reused' : 'must be replaced'})`,
    );
  }
}
