// The contract, read from the OpenAPI document at run time: the operations, their parameters,
// scopes, documented responses (statuses, media types, headers, body schemas, problem codes), and
// the path-level answers the spec states in its description. Nothing here names an operation.
import { openapiDocument } from '@workforce-kit/types';
import {
  createSchemaValidator,
  type SchemaNode,
  type SchemaValidator,
} from './schema-validator.js';

export type ParameterLocation = 'path' | 'query' | 'header';

/** A schema object as the generators read it (the keywords they look at). */
export interface SchemaObject {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: unknown;
  readonly [keyword: string]: unknown;
}

export interface SpecParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  /** The parameter's schema with its `$ref`s followed at the top. */
  readonly schema: SchemaObject;
}

export interface SpecHeader {
  readonly required: boolean;
  readonly schema: SchemaObject;
}

export interface SpecResponse {
  /** Body schemas by media type (lower case). */
  readonly content: ReadonlyMap<string, SchemaNode>;
  readonly headers: ReadonlyMap<string, SpecHeader>;
}

export interface SpecOperation {
  readonly id: string;
  readonly method: string;
  readonly template: string;
  /** The scope its security requirement names. */
  readonly scope: string;
  readonly parameters: readonly SpecParameter[];
  /** By status code (`"200"`, `"404"`). */
  readonly responses: ReadonlyMap<string, SpecResponse>;
  /** The media types of the request body, when the operation takes one. */
  readonly requestMediaTypes: readonly string[] | undefined;
  /** The schema of the request body (of its first media type). */
  readonly requestSchema: SchemaNode;
}

/** An event as the spec's `webhooks` section documents its delivery. */
export interface SpecWebhook {
  /** Its type (the section's key, and the body's `type`): `employee.archived`. */
  readonly type: string;
  /** The schema of its body. */
  readonly body: SchemaNode;
  /** The headers each delivery carries (`webhook-id`, …). */
  readonly headers: readonly SpecParameter[];
}

/** Everything the kit reads from the spec. */
export interface Spec {
  readonly operations: readonly SpecOperation[];
  /** The paths, with their operations. */
  readonly paths: ReadonlyMap<string, readonly SpecOperation[]>;
  /** The API's path prefixes (`/labor/v1`, …): a path under one that names no operation is 404. */
  readonly prefixes: readonly string[];
  /** The literal segments of the spec's paths. */
  readonly literalSegments: readonly string[];
  /** Every scope the security schemes define. */
  readonly scopes: readonly string[];
  /** The answer to a path under the API that names no operation (the description, "Errors"). */
  readonly notFound: SpecResponse;
  /** The events the API sends, by type (the `webhooks` section). */
  readonly webhooks: ReadonlyMap<string, SpecWebhook>;
  /**
   * Named component schemas, for the model's own checks (`Employee`, `Shift`, `GuidInput`, …):
   * the same node for a name every time (the validator compiles each node once).
   */
  schema(name: string): SchemaNode;
  /** A component schema as the document writes it. */
  componentSchema(name: string): SchemaNode | undefined;
  readonly validator: SchemaValidator;
  /** Whether `path` matches one of the spec's path templates. */
  matchesTemplate(path: string): boolean;
}

/** The methods a path item may hold (OpenAPI 3.1). */
export const OPENAPI_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
];

/** Keywords that describe and do not constrain. */
const ANNOTATIONS = new Set([
  'description',
  'examples',
  'example',
  'title',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);

interface RawOperation {
  readonly operationId: string;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly parameters?: readonly unknown[];
  readonly requestBody?: unknown;
  readonly responses: Readonly<Record<string, unknown>>;
}

interface RawDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly webhooks?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** A parameter or header value from its text, as the spec's simple and form styles read it. */
export function fromText(schema: SchemaObject, text: string): unknown {
  switch (schema.type) {
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer':
    case 'number':
      return /^-?\d+(?:\.\d+)?$/.test(text) ? Number(text) : text;
    default:
      return text;
  }
}

/** A header value as the server sees it: HTTP strips the whitespace around it. */
export const onWire = (value: string) => value.replace(/^[\t ]+|[\t ]+$/g, '');

/** Whether a parameter's schema admits every string (nothing but `type: string`). */
export const isUnconstrained = (p: SpecParameter) =>
  p.schema.type === 'string' &&
  Object.keys(p.schema).every((keyword) => keyword === 'type' || ANNOTATIONS.has(keyword));

/**
 * Reads `document` (the workforce-kit contract by default), once per process.
 *
 * @throws when the document uses what the kit cannot generate requests for (a cookie parameter,
 *   an operation without a scope, a reference outside the document)
 */
export function readSpec(document: unknown = openapiDocument): Spec {
  if (document === null || typeof document !== 'object')
    throw new Error('the spec is not an object');
  let read = specs.get(document);
  if (read === undefined) {
    read = readDocument(document as RawDocument);
    specs.set(document, read);
  }
  return read;
}

/**
 * The specs read, by document: a spec is read-only once read, so every run of the kit in a process
 * shares one, with its compiled validators and the arbitraries made from its schemas.
 */
const specs = new WeakMap<object, Spec>();

/** The JSON pointer `ref` (`#/components/…`) followed from `root`; undefined when it names nothing. */
function pointee(root: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], root);
}

/** The parts of one OpenAPI document as the kit reads them, its local `$ref`s followed. */
class DocumentReader {
  readonly #document: RawDocument;

  constructor(document: RawDocument) {
    this.#document = document;
  }

  /** `node`, its `$ref`s followed (local ones only, at most 16 hops). */
  deref<T>(node: T): T {
    let current: unknown = node;
    for (let hops = 0; hops < 16; hops++) {
      const ref = (current as { $ref?: unknown } | null)?.$ref;
      if (typeof ref !== 'string') return current as T;
      if (!ref.startsWith('#/')) throw new Error(`only local references are followed: ${ref}`);
      current = pointee(this.#document, ref);
      if (current === undefined) throw new Error(`unresolved reference ${ref}`);
    }
    throw new Error('reference cycle');
  }

  /** Every operation of every path, in the document's order. */
  operations(): SpecOperation[] {
    return Object.entries(this.#document.paths).flatMap(([template, item]) =>
      OPENAPI_METHODS.flatMap((method) => {
        const raw = item[method] as RawOperation | undefined;
        const shared = (item.parameters ?? []) as readonly unknown[];
        return raw === undefined ? [] : [this.#operation(template, method, raw, shared)];
      }),
    );
  }

  /** Every scope the security schemes define. */
  scopes(): string[] {
    const schemes = (this.#document.components.securitySchemes ?? {}) as Readonly<
      Record<string, { flows?: Readonly<Record<string, { scopes?: Record<string, string> }>> }>
    >;
    return [
      ...new Set(
        Object.values(schemes).flatMap((scheme) =>
          Object.values(scheme.flows ?? {}).flatMap((flow) => Object.keys(flow.scopes ?? {})),
        ),
      ),
    ];
  }

  /** The answer to a path under the API that names no operation: a 404 `NOT_FOUND` problem. */
  notFound(): SpecResponse {
    const requestIdHeader = this.deref({ $ref: '#/components/headers/X-Request-Id' }) as {
      schema?: SchemaObject;
    };
    return {
      content: new Map<string, SchemaNode>([
        [
          'application/problem+json',
          {
            allOf: [
              { $ref: '#/components/schemas/Problem' },
              { properties: { status: { const: 404 }, code: { const: 'NOT_FOUND' } } },
            ],
          },
        ],
      ]),
      headers: new Map([
        ['X-Request-Id', { required: true, schema: this.deref(requestIdHeader.schema ?? {}) }],
      ]),
    };
  }

  /** The events of the `webhooks` section: each one's body schema and headers. */
  webhooks(): Map<string, SpecWebhook> {
    return new Map(
      Object.entries(this.#document.webhooks ?? {}).map(([type, item]) => {
        const post = item.post as RawOperation | undefined;
        const body = this.deref(post?.requestBody) as
          | { content?: Readonly<Record<string, { schema?: SchemaNode }>> }
          | undefined;
        return [
          type,
          {
            type,
            body: body?.content?.['application/json']?.schema ?? true,
            headers: (post?.parameters ?? [])
              .map((p) => this.#parameter(p))
              .filter((p) => p.in === 'header'),
          },
        ];
      }),
    );
  }

  /** The component schemas, by name, as the document writes them. */
  componentSchemas(): Readonly<Record<string, SchemaNode>> {
    return (this.#document.components.schemas ?? {}) as Readonly<Record<string, SchemaNode>>;
  }

  #operation(
    template: string,
    method: string,
    raw: RawOperation,
    shared: readonly unknown[],
  ): SpecOperation {
    const own = (raw.parameters ?? []).map((p) => this.#parameter(p));
    const inherited = shared
      .map((p) => this.#parameter(p))
      .filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
    const body = this.deref(raw.requestBody) as
      | { content?: Readonly<Record<string, { schema?: SchemaNode }>> }
      | undefined;
    const scope = Object.values(raw.security?.[0] ?? {})[0]?.[0];
    if (scope === undefined) throw new Error(`${raw.operationId} names no scope`);
    return {
      id: raw.operationId,
      method: method.toUpperCase(),
      template,
      scope,
      parameters: [...inherited, ...own],
      responses: new Map(
        Object.entries(raw.responses).map(([status, r]) => [status, this.#response(r)]),
      ),
      requestMediaTypes: body === undefined ? undefined : Object.keys(body.content ?? {}),
      requestSchema: Object.values(body?.content ?? {})[0]?.schema ?? true,
    };
  }

  #parameter(raw: unknown): SpecParameter {
    const {
      name,
      in: location,
      required = false,
      schema = {},
    } = this.deref(raw) as {
      name: string;
      in: ParameterLocation | 'cookie';
      required?: boolean;
      schema?: SchemaObject;
    };
    if (location === 'cookie') throw new Error(`cookie parameter ${name}: not generated`);
    return {
      name,
      in: location,
      required: required || location === 'path',
      schema: this.deref(schema),
    };
  }

  #response(raw: unknown): SpecResponse {
    const response = this.deref(raw) as {
      content?: Readonly<Record<string, { schema?: SchemaNode }>>;
      headers?: Readonly<Record<string, unknown>>;
    };
    return {
      content: new Map(
        Object.entries(response.content ?? {}).map(([type, media]) => [
          type.toLowerCase(),
          media.schema ?? true,
        ]),
      ),
      headers: new Map(
        Object.entries(response.headers ?? {}).map(([name, header]) => {
          const { required = false, schema = {} } = this.deref(header) as {
            required?: boolean;
            schema?: SchemaObject;
          };
          return [name, { required, schema: this.deref(schema) }];
        }),
      ),
    };
  }
}

/** Whether a path matches one of `templates` (`/labor/v1/employees/{employeeId}`). */
function templateMatcher(templates: readonly string[]): (path: string) => boolean {
  const patterns = templates.map((template) => {
    const source = template
      .split(/\{[^}]+\}/)
      .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    return new RegExp(`^${source}$`);
  });
  return (path) => patterns.some((pattern) => pattern.test(path));
}

/**
 * A `$ref` node per component schema name, made once: the validator compiles a schema once per
 * node it is given.
 */
function schemaReferences(
  componentSchemas: Readonly<Record<string, SchemaNode>>,
): (name: string) => SchemaNode {
  const references = new Map<string, SchemaNode>();
  return (name) => {
    if (componentSchemas[name] === undefined) throw new Error(`the spec has no schema ${name}`);
    let reference = references.get(name);
    if (reference === undefined) {
      reference = { $ref: `#/components/schemas/${name}` };
      references.set(name, reference);
    }
    return reference;
  };
}

function readDocument(document: RawDocument): Spec {
  const validator = createSchemaValidator(document);
  const reader = new DocumentReader(document);
  const operations = reader.operations();
  const paths = new Map(
    [...new Set(operations.map((op) => op.template))].map((template) => [
      template,
      operations.filter((op) => op.template === template),
    ]),
  );
  const templates = [...paths.keys()];
  const componentSchemas = reader.componentSchemas();
  return {
    operations,
    paths,
    prefixes: [...new Set(templates.map((t) => t.split('/').slice(0, 3).join('/')))],
    literalSegments: [
      ...new Set(templates.flatMap((t) => t.split('/')).filter((s) => /^[^{]+$/.test(s))),
    ],
    scopes: reader.scopes(),
    notFound: reader.notFound(),
    webhooks: reader.webhooks(),
    schema: schemaReferences(componentSchemas),
    componentSchema: (name) => componentSchemas[name],
    validator,
    matchesTemplate: templateMatcher(templates),
  };
}

/**
 * Whether a path segment's value is a dot segment (`.` or `..`, however its dots are encoded). The
 * kit sends none: a URL parser removes them before the app sees the path (RFC 3986, 5.2.4; the
 * WHATWG URL of every fetch host, Hono, Bun and Deno, and most proxies), so
 * `GET /labor/v1/shifts/.` reaches such an app as `/labor/v1/shifts/`: a property over them would
 * test the host's URL parser, not the API.
 */
export const isDotSegment = (segment: string) => segment === '.' || segment === '..';

/** Whether `text`, sent in `p`'s place (percent-decoded), is valid for `p`. */
export function isValidText(spec: Spec, p: SpecParameter, text: string): boolean {
  const value = p.in === 'header' ? onWire(text) : text;
  if (p.in === 'path' && value === '') return false;
  return spec.validator.matches(p.schema, fromText(p.schema, value));
}

/** The problem codes a response schema documents: the `code` enums (or consts) of its parts. */
export function documentedCodes(spec: Spec, node: SchemaNode | undefined): string[] {
  if (node === undefined || typeof node === 'boolean') return [];
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const name = ref.split('/').pop() ?? '';
    return documentedCodes(spec, spec.componentSchema(name));
  }
  const properties = node.properties as Readonly<Record<string, SchemaNode>> | undefined;
  const code = properties?.code;
  const own =
    code === undefined || typeof code === 'boolean'
      ? []
      : [...(Array.isArray(code.enum) ? code.enum : []), ...('const' in code ? [code.const] : [])]
          .filter((value) => value !== undefined)
          .map(String);
  const parts = (node.allOf as readonly SchemaNode[] | undefined) ?? [];
  return [...own, ...parts.flatMap((part) => documentedCodes(spec, part))];
}
