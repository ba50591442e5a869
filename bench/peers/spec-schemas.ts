// The JSON schemas of the contract (openapi/openapi.yaml, as @workforce-kit/types gives it), with
// their references inlined, for the hand-written Fastify peer: what a good engineer would do is
// reuse the spec's schemas, not retype them.
import { openapiDocument } from '@workforce-kit/types';

type Schema = Record<string, unknown>;

const components = openapiDocument.components as unknown as {
  schemas: Record<string, Schema>;
  parameters: Record<string, { schema: Schema }>;
};
const REF = '#/components/schemas/';

function inline(value: unknown, drop: ReadonlySet<string>, depth: number): unknown {
  if (depth > 32) throw new Error('the spec schema nests too deep (a cycle?)');
  if (Array.isArray(value)) return value.map((item) => inline(item, drop, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const { $ref, ...rest } = value as Schema;
  const entries = Object.entries(rest)
    .filter(([key]) => !drop.has(key))
    .map(([key, item]) => [key, inline(item, drop, depth + 1)]);
  if (typeof $ref !== 'string') return Object.fromEntries(entries);
  if (!$ref.startsWith(REF)) throw new Error(`unexpected reference ${$ref}`);
  const target = components.schemas[$ref.slice(REF.length)];
  if (target === undefined) throw new Error(`no schema ${$ref}`);
  return { ...(inline(target, drop, depth + 1) as Schema), ...Object.fromEntries(entries) };
}

/**
 * A component schema with its references inlined; `drop` leaves keywords out (a serialiser needs
 * no `if`/`then`/`else`).
 */
export function specSchema(name: string, drop: readonly string[] = []): Schema {
  const schema = components.schemas[name];
  if (schema === undefined) throw new Error(`no schema ${name}`);
  return inline(schema, new Set(drop), 0) as Schema;
}

/** The schema of a component parameter, its references inlined. */
export function parameterSchema(name: string): Schema {
  const parameter = components.parameters[name];
  if (parameter === undefined) throw new Error(`no parameter ${name}`);
  return inline(parameter.schema, new Set(), 0) as Schema;
}

/** The contract itself, a copy (the libraries that read it may change it). */
export function specDocument(): typeof openapiDocument {
  return structuredClone(openapiDocument);
}
