// JSON Schema validation of the spec's schemas with Ajv (JSON Schema 2020-12, the dialect of
// OpenAPI 3.1). Every component schema is registered once under `$defs`; a schema found anywhere
// in the document is compiled with its `#/components/schemas/…` references pointed there, and
// kept, so that each is compiled once per process.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { sentencesOf } from './schema-error-sentences.js';

/** A JSON Schema node of the spec. */
export type SchemaNode = boolean | Readonly<Record<string, unknown>>;

// ajv-formats is CommonJS: Node's default import is its module.exports, the plugin, which also
// holds itself as `default` (what the types describe).
const addFormats = addFormatsModule.default;

const COMPONENTS_ID = 'workforce-kit-contract:components';
const COMPONENT_REF = '#/components/schemas/';

/** A `$ref` into the components, pointed at their registered copy. */
function retarget(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(retarget);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)
        ? `${COMPONENTS_ID}#/$defs/${value.slice(COMPONENT_REF.length)}`
        : retarget(value);
  }
  return copy;
}

/** The schema validators of one OpenAPI document. */
export interface SchemaValidator {
  /**
   * The ways `value` breaks `schema`, as sentences in the domain's words (ajv's own errors after
   * each); empty when it matches. `subject` names the value (by default, the record the schema
   * names, in its state: `an archived employee`).
   */
  errors(schema: SchemaNode, value: unknown, subject?: string): string[];
  /** Whether `value` matches `schema`. */
  matches(schema: SchemaNode, value: unknown): boolean;
}

/**
 * Validators for the schemas of `components.schemas` of `document`, and of any schema that refers
 * to them. Unknown keywords are refused when a schema is compiled (strict mode), so that a spec
 * that starts using a keyword the validator ignores fails loudly rather than passing unchecked.
 */
export function createSchemaValidator(document: {
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}): SchemaValidator {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    // Each error with its schema node and data, for the sentences that explain it.
    verbose: true,
    // OpenAPI's own annotation keywords, beside JSON Schema's.
    keywords: ['example', 'discriminator', 'xml', 'externalDocs'],
  });
  addFormats(ajv);
  const components = retarget(document.components?.schemas ?? {}) as Record<string, unknown>;
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: components });
  const names = new Map<unknown, string>(
    Object.entries(components).map(([name, node]) => [node, name]),
  );
  const compiled = new WeakMap<object, ValidateFunction>();
  const booleans = new Map<boolean, ValidateFunction>();
  const validatorOf = (schema: SchemaNode): ValidateFunction => {
    if (typeof schema === 'boolean') {
      let validate = booleans.get(schema);
      if (validate === undefined) {
        validate = ajv.compile(schema);
        booleans.set(schema, validate);
      }
      return validate;
    }
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile(retarget(schema) as Record<string, unknown>);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const context = {
    components,
    nameOf: (node: unknown) => names.get(node),
    matches: (node: unknown, value: unknown) => validatorOf(node as SchemaNode)(value) === true,
  };
  return {
    errors(schema, value, subject) {
      const validate = validatorOf(schema);
      if (validate(value)) return [];
      return sentencesOf(validate.errors ?? [], schema, value, context, subject);
    },
    matches(schema, value) {
      return validatorOf(schema)(value) === true;
    },
  };
}
