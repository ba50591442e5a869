import type { OpenApiDocument, operations } from '@workforce-kit/types';

/**
 * The operations of the spec's paths, by `operationId` (the generated type: a new one must be
 * handled). The operations of its `webhooks` (`…Webhook`) are requests the service sends, not
 * operations it serves.
 */
export type OperationId = Exclude<keyof operations, `${string}Webhook`>;

/** An HTTP method an operation of the spec may have. */
export type OperationMethod = 'GET' | 'PUT' | 'DELETE' | 'POST' | 'PATCH';

/** A parameter of an operation, as the spec states it (local references followed). */
export interface OperationParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** What the edge needs to know about an operation, read from the spec once. */
export interface ApiOperation {
  readonly id: OperationId;
  readonly method: OperationMethod;
  /** The spec's path template, such as `/labor/v1/shifts/{shiftId}`. */
  readonly path: string;
  /** The names of the path's parameters, in order. */
  readonly pathParams: readonly string[];
  readonly parameters: readonly OperationParameter[];
  /** The OAuth scope the operation requires. */
  readonly scope: string;
  /** The schema of the request body, when the operation takes one (only then is a body read). */
  readonly bodySchema: Readonly<Record<string, unknown>> | undefined;
  /**
   * Path parameters the spec leaves a plain string: any value is valid, even one that does not
   * percent-decode (`restaurantGUID`: anything that is not a GUID is simply not found).
   */
  readonly unconstrainedParams: ReadonlySet<string>;
  /** The documented responses: status → the schema of its JSON body, if it has one. */
  readonly responses: ReadonlyMap<number, Readonly<Record<string, unknown>> | undefined>;
}

/** A path template of the spec and the methods it answers. */
export interface ApiPath {
  readonly template: string;
  /** The `Allow` header of the path: its methods, and HEAD where GET is. */
  readonly allow: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface RawParameter {
  readonly $ref?: string;
  readonly name?: string;
  readonly in?: OperationParameter['in'];
  readonly required?: boolean;
  readonly schema?: Readonly<Record<string, unknown>>;
}

interface RawMedia {
  readonly schema?: Readonly<Record<string, unknown>>;
}

interface RawResponse {
  readonly $ref?: string;
  readonly content?: Readonly<Record<string, RawMedia>>;
}

interface RawOperation {
  readonly operationId?: string;
  readonly security?: readonly Record<string, readonly string[]>[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, RawMedia>> };
  readonly parameters?: readonly RawParameter[];
  readonly responses?: Readonly<Record<string, RawResponse>>;
}

/** A local `#/components/<kind>/<name>` reference, followed. */
function resolved<T extends { readonly $ref?: string }>(
  document: OpenApiDocument,
  kind: 'parameters' | 'responses',
  item: T,
): T {
  const prefix = `#/components/${kind}/`;
  if (item.$ref === undefined || !item.$ref.startsWith(prefix)) return item;
  const components = document.components as Record<string, Record<string, T> | undefined>;
  return components[kind]?.[item.$ref.slice(prefix.length)] ?? item;
}

function parametersOf(document: OpenApiDocument, raw: RawOperation): OperationParameter[] {
  return (raw.parameters ?? []).map((item) => {
    const parameter = resolved(document, 'parameters', item);
    if (parameter.name === undefined || parameter.in === undefined) {
      throw new Error(`a parameter of ${raw.operationId} has no name or place`);
    }
    return {
      name: parameter.name,
      in: parameter.in,
      required: parameter.required === true,
      schema: parameter.schema ?? {},
    };
  });
}

function responsesOf(
  document: OpenApiDocument,
  raw: RawOperation,
): Map<number, RawMedia['schema']> {
  const responses = new Map<number, RawMedia['schema']>();
  for (const [status, item] of Object.entries(raw.responses ?? {})) {
    const response = resolved(document, 'responses', item);
    const media = Object.values(response.content ?? {})[0];
    responses.set(Number(status), media?.schema);
  }
  return responses;
}

/**
 * Reads the operations of the document: method, path, parameters, scope, body and responses.
 *
 * @throws when an operation lacks an `operationId` or an oauth2 scope (a spec this edge cannot
 *   serve): at start-up, never per request
 */
export function readOperations(document: OpenApiDocument): ApiOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const raw = (item as Record<string, RawOperation | undefined>)[method];
      if (raw === undefined) return [];
      const scope = raw.security?.[0]?.oauth2?.[0];
      if (raw.operationId === undefined || scope === undefined) {
        throw new Error(`${method.toUpperCase()} ${path} needs an operationId and an oauth2 scope`);
      }
      const parameters = parametersOf(document, raw);
      const bodyMedia = raw.requestBody?.content?.['application/json'];
      return [
        {
          id: raw.operationId as OperationId,
          method: method.toUpperCase() as OperationMethod,
          path,
          pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? ''),
          parameters,
          scope,
          bodySchema: raw.requestBody === undefined ? undefined : (bodyMedia?.schema ?? {}),
          unconstrainedParams: new Set(
            parameters
              .filter((p) => p.in === 'path' && Object.keys(p.schema).join() === 'type')
              .map((p) => p.name),
          ),
          responses: responsesOf(document, raw),
        },
      ];
    }),
  );
}

/** The path templates of the operations, each with its `Allow` header. */
export function pathsOf(operations: readonly ApiOperation[]): ApiPath[] {
  const methods = new Map<string, string[]>();
  for (const operation of operations) {
    methods.set(operation.path, [...(methods.get(operation.path) ?? []), operation.method]);
  }
  return [...methods].map(([template, list]) => ({
    template,
    allow: (list.includes('GET') ? [...list, 'HEAD'] : list).join(', '),
  }));
}

/**
 * The prefixes the API owns (`/labor/v1`, `/restaurants/v1`): a request under one that names no
 * operation is the API's 404, not the host's.
 */
export function prefixesOf(operations: readonly ApiOperation[]): string[] {
  return [...new Set(operations.map((op) => op.path.split('/').slice(0, 3).join('/')))];
}
