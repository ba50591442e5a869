import type { OpenApiDocument, operations } from '@workforce-kit/types';
import { IDENTIFIER_MESSAGES } from './to-problem.js';

/** The operations of the spec, by `operationId` (the generated type: a new one must be handled). */
export type OperationId = keyof operations;

/** What the router needs to know about an operation, read from the spec once. */
export interface OperationSpec {
  readonly id: OperationId;
  readonly method: 'GET' | 'PUT' | 'DELETE' | 'POST' | 'PATCH';
  /** The spec's path template, such as `/labor/v1/shifts/{shiftId}`. */
  readonly path: string;
  /** The OAuth scope the operation requires. */
  readonly scope: string;
  /** Whether the operation takes a request body (only then is a body read). */
  readonly hasBody: boolean;
  /** Path parameters the spec leaves a plain string: any value is valid, even a malformed encoding. */
  readonly unconstrainedParams: ReadonlySet<string>;
  /**
   * What each identifier input accepts, in words, by its path in a 400's `errors`
   * (`/params/shiftId`, `/headers/platform-restaurant-external-id`): read from the schema the
   * spec gives the parameter (`GuidInput`, `RecordIdInput`).
   */
  readonly identifierMessages: ReadonlyMap<string, string>;
}

/** The operations of one path template, and how to match it. */
export interface PathEntry {
  readonly template: string;
  readonly pattern: RegExp;
  readonly paramNames: readonly string[];
  readonly operations: ReadonlyMap<string, OperationSpec>;
  /** The `Allow` header of the path: its methods, and HEAD where GET is. */
  readonly allow: string;
}

/** The matched operation of a request, with its raw (still percent-encoded) path parameters. */
export type RouteMatch =
  | {
      readonly kind: 'operation';
      readonly operation: OperationSpec;
      readonly rawParams: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'method-not-allowed'; readonly allow: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'not-ours' };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface RawParameter {
  readonly $ref?: string;
  readonly name?: string;
  readonly in?: string;
  readonly schema?: Readonly<Record<string, unknown>>;
}

interface RawOperation {
  readonly operationId?: string;
  readonly security?: readonly Record<string, readonly string[]>[];
  readonly requestBody?: unknown;
  readonly parameters?: readonly RawParameter[];
}

/** A parameter, following a local `#/components/parameters/…` reference. */
function resolveParameter(document: OpenApiDocument, parameter: RawParameter): RawParameter {
  const name = parameter.$ref?.replace('#/components/parameters/', '');
  if (name === undefined) return parameter;
  const parameters = document.components?.parameters as
    | Readonly<Record<string, RawParameter>>
    | undefined;
  return parameters?.[name] ?? parameter;
}

function unconstrainedPathParams(document: OpenApiDocument, raw: RawOperation): Set<string> {
  const names = (raw.parameters ?? [])
    .map((parameter) => resolveParameter(document, parameter))
    .filter(
      (p) =>
        p.in === 'path' &&
        Object.keys(p.schema ?? {}).join() === 'type' &&
        p.schema?.type === 'string',
    )
    .map((p) => p.name ?? '');
  return new Set(names);
}

/** The identifier schemas of the spec, and what each accepts. */
const IDENTIFIER_SCHEMAS = new Map<string, string>([
  ['#/components/schemas/GuidInput', IDENTIFIER_MESSAGES.guid],
  ['#/components/schemas/RecordIdInput', IDENTIFIER_MESSAGES['guid-or-external-id']],
]);

function identifierMessages(document: OpenApiDocument, raw: RawOperation): Map<string, string> {
  const messages = new Map<string, string>();
  for (const parameter of (raw.parameters ?? []).map((p) => resolveParameter(document, p))) {
    const message = IDENTIFIER_SCHEMAS.get(String(parameter.schema?.$ref));
    if (message === undefined || parameter.name === undefined) continue;
    const where = parameter.in === 'header' ? 'headers' : 'params';
    const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
    messages.set(`/${where}/${name}`, message);
  }
  return messages;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Reads the operations of the document: method, path, scope, body. */
export function readOperations(document: OpenApiDocument): OperationSpec[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const raw = item[method] as RawOperation | undefined;
      if (raw === undefined) return [];
      const scope = raw.security?.[0]?.oauth2?.[0];
      if (raw.operationId === undefined || scope === undefined) {
        throw new Error(`${method.toUpperCase()} ${path} needs an operationId and an oauth2 scope`);
      }
      return [
        {
          id: raw.operationId as OperationId,
          method: method.toUpperCase() as OperationSpec['method'],
          path,
          scope,
          hasBody: raw.requestBody !== undefined,
          unconstrainedParams: unconstrainedPathParams(document, raw),
          identifierMessages: identifierMessages(document, raw),
        },
      ];
    }),
  );
}

/**
 * Compiles the routing of the operations, once: each path template becomes a regular expression
 * (case-sensitive, no trailing slash, a parameter is one non-empty segment). Requests under the
 * templates' first two segments (`/labor/v1`, `/restaurants/v1`) belong to the API: unknown ones
 * are 404 and wrong methods 405. Anything else is left to the host's app.
 */
export function compileRoutes(
  operations: readonly OperationSpec[],
): (method: string, path: string) => RouteMatch {
  const byTemplate = new Map<string, OperationSpec[]>();
  for (const operation of operations) {
    byTemplate.set(operation.path, [...(byTemplate.get(operation.path) ?? []), operation]);
  }
  const entries: PathEntry[] = [...byTemplate].map(([template, ops]) => {
    const paramNames = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
    const source = template
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join('([^/]+)');
    const methods: string[] = ops.map((op) => op.method);
    if (methods.includes('GET')) methods.push('HEAD');
    return {
      template,
      pattern: new RegExp(`^${source}$`),
      paramNames,
      operations: new Map(ops.map((op) => [op.method, op])),
      allow: methods.join(', '),
    };
  });
  const prefixes = [...new Set(operations.map((op) => op.path.split('/').slice(0, 3).join('/')))];

  return (method, path) => {
    for (const entry of entries) {
      const found = entry.pattern.exec(path);
      if (found === null) continue;
      const operation = entry.operations.get(method === 'HEAD' ? 'GET' : method);
      if (operation === undefined) return { kind: 'method-not-allowed', allow: entry.allow };
      const rawParams: Record<string, string> = {};
      entry.paramNames.forEach((name, i) => {
        rawParams[name] = found[i + 1] ?? '';
      });
      return { kind: 'operation', operation, rawParams };
    }
    return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))
      ? { kind: 'not-found' }
      : { kind: 'not-ours' };
  };
}
