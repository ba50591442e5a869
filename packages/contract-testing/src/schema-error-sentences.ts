// Ajv's errors about a body, said in the words of the domain: which record (the component schema
// the body's schema names: an employee, a shift), in which state (the `title` of the `then` or
// `else` branch of its `if` that the record meets: archived, active), which field, and what is
// wrong with it (a format or pattern said by the description of the schema that has it). Every
// word comes from the spec or from ajv's error, so a spec change changes the sentences with it.
// Each sentence ends with the ajv errors it stands for, for the reader who wants them.
import type { ErrorObject } from 'ajv/dist/2020.js';

/** A schema node, as the validator holds it. */
type Node = Readonly<Record<string, unknown>>;

/** What the sentences need of the validator: the spec's components, and a match against a node. */
export interface SentenceContext {
  /** The component schemas by name, as compiled (the nodes ajv's errors point at). */
  readonly components: Readonly<Record<string, unknown>>;
  /** The component's name of a node, when the node is a component schema. */
  readonly nameOf: (node: unknown) => string | undefined;
  /** Whether `value` matches `node`. */
  readonly matches: (node: unknown, value: unknown) => boolean;
}

const isNode = (value: unknown): value is Node =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** One ajv error as ajv words it: the instance path, the message, and the value it names. */
export function rawError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const allowed = params.allowedValues;
  const named =
    error.keyword === 'const'
      ? params.allowedValue
      : error.keyword === 'enum' && Array.isArray(allowed) && allowed.length <= 6
        ? allowed
        : error.keyword === 'additionalProperties'
          ? params.additionalProperty
          : undefined;
  return `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${
    named === undefined ? '' : `: ${JSON.stringify(named)}`
  }`;
}

/** `a` or `an` before `word`. */
const article = (word: string) => (/^[aeio]/i.test(word) ? `an ${word}` : `a ${word}`);

/** `RestaurantInfo` as `restaurant info`. */
const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();

/** A value, short, as JSON. */
function shown(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const typeOf = (value: unknown) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : Number.isInteger(value)
        ? 'an integer'
        : article(typeof value);

/** `/jobReferences/0/guid` as `jobReferences[0].guid`. */
function fieldOf(instancePath: string, more?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (more !== undefined) segments.push(more);
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** The first sentence of a schema's description, lower-cased at its start, without its stop. */
function describedAs(node: unknown): string | undefined {
  const description = isNode(node) ? node.description : undefined;
  if (typeof description !== 'string') return undefined;
  const text = description.replace(/\s+/g, ' ').trim();
  let first = /^(.*?[.])(?:\s|$)/.exec(text)?.[1] ?? text;
  if (first.length > 90) first = first.split(/[:;]\s/)[0] ?? first;
  first = first.replace(/\.$/, '');
  return first.charAt(0).toLowerCase() + first.slice(1);
}

const FORMATS: Readonly<Record<string, string>> = {
  'date-time': 'a date-time (RFC 3339)',
  date: 'a date (RFC 3339)',
  time: 'a time (RFC 3339)',
  email: 'an email address',
  uri: 'a URI',
  'uri-reference': 'a URI reference',
  uuid: 'a UUID',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a host name',
};

/** The value at a JSON pointer of `root`. */
function at(root: unknown, instancePath: string): unknown {
  let value = root;
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    value = isNode(value) || Array.isArray(value) ? (value as Node)[key] : undefined;
  }
  return value;
}

/** Every schema node of a subtree (its `$ref`s not followed). */
function nodesOf(node: unknown, into = new Set<unknown>()): Set<unknown> {
  if (Array.isArray(node)) {
    for (const item of node) nodesOf(item, into);
  } else if (isNode(node) && !into.has(node)) {
    into.add(node);
    for (const value of Object.values(node)) nodesOf(value, into);
  }
  return into;
}

/** The component a schema names at its top: `$ref`, or the first `$ref` of an `allOf`. */
function componentNamed(schema: unknown, context: SentenceContext): string | undefined {
  if (!isNode(schema)) return undefined;
  const own = context.nameOf(schema);
  if (own !== undefined) return own;
  const ref = schema.$ref;
  if (typeof ref === 'string') return /[^/]+$/.exec(ref)?.[0];
  const all = schema.allOf;
  if (Array.isArray(all)) {
    for (const part of all) {
      const name = componentNamed(part, context);
      if (name !== undefined) return name;
    }
  }
  return undefined;
}

/** The title of the one `then`/`else` branch of `node`'s `if` that `value` meets, if titled. */
function stateOf(node: unknown, value: unknown, context: SentenceContext): string | undefined {
  if (!isNode(node) || !isNode(node.if)) return undefined;
  const met = [node.then, node.else].filter(
    (branch) =>
      isNode(branch) && typeof branch.title === 'string' && context.matches(branch, value),
  ) as Node[];
  return met.length === 1 ? String(met[0]?.title) : undefined;
}

/**
 * The sentences that say how `value` breaks `schema`, from ajv's `errors` for it (verbose: each
 * with its `parentSchema` and `data`). `subject` names the value (`the X-Request-Id header`);
 * by default it is the record the schema names, in its state (`an archived employee`).
 */
export function sentencesOf(
  errors: readonly ErrorObject[],
  schema: unknown,
  value: unknown,
  context: SentenceContext,
  subject?: string,
): string[] {
  const name = componentNamed(schema, context);
  const component = name === undefined ? undefined : context.components[name];
  const state = stateOf(component, value, context);
  const kind = name === undefined ? undefined : words(name);
  const root =
    subject ??
    (kind === undefined ? 'the body' : article(state === undefined ? kind : `${state} ${kind}`));
  const target = (instancePath: string, more?: string) =>
    instancePath === '' && more === undefined
      ? root
      : `${root}'s \`${fieldOf(instancePath, more)}\``;

  // The errors a failing `if`, `anyOf` or `oneOf` stands for: said once, by it.
  const coveredBy = new Map<ErrorObject, ErrorObject[]>();
  const covered = new Set<ErrorObject>();
  for (const error of errors) {
    const parent = error.parentSchema;
    if (!isNode(parent)) continue;
    const branches =
      error.keyword === 'if'
        ? nodesOf(parent[(error.params as { failingKeyword: string }).failingKeyword])
        : error.keyword === 'anyOf' || error.keyword === 'oneOf'
          ? nodesOf(parent[error.keyword])
          : undefined;
    if (branches === undefined) continue;
    const under = errors.filter(
      (other) =>
        other !== error &&
        (other.instancePath === error.instancePath ||
          other.instancePath.startsWith(`${error.instancePath}/`)) &&
        branches.has(other.parentSchema),
    );
    coveredBy.set(error, under);
    for (const other of under) covered.add(other);
  }

  // One sentence per field (a GUID breaks both its pattern and its format): the first ajv gives.
  const said: { key: string; sentence: string; raw: string[] }[] = [];
  for (const error of errors) {
    if (covered.has(error)) continue;
    const raw = [...(coveredBy.get(error) ?? []), error].map(rawError);
    const sentence = sentenceOf(error, value, target, context, kind);
    const key = ['required', 'additionalProperties', 'if'].includes(error.keyword)
      ? sentence
      : error.instancePath;
    const kept = said.find((s) => s.key === key);
    if (kept === undefined) said.push({ key, sentence, raw });
    else kept.raw.push(...raw);
  }
  return said.map(({ sentence, raw }) => `${sentence} (ajv: ${raw.join('; ')})`);
}

function sentenceOf(
  error: ErrorObject,
  value: unknown,
  target: (instancePath: string, more?: string) => string,
  context: SentenceContext,
  kind: string | undefined,
): string {
  const data = error.data ?? at(value, error.instancePath);
  const here = target(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const parent = isNode(error.parentSchema) ? error.parentSchema : {};
  switch (error.keyword) {
    case 'required':
      return `${target(error.instancePath, String(params.missingProperty))} is missing`;
    case 'additionalProperties':
      return `${here} has \`${String(params.additionalProperty)}\`, which the spec does not define`;
    case 'type':
      return `${here} is ${typeOf(data)}, where the spec has ${article(String(params.type))}`;
    case 'const':
      return `${here} is ${shown(data)}, where the spec has ${shown(params.allowedValue)}`;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [];
      return allowed.length > 6
        ? `${here} is ${shown(data)}, none of the ${allowed.length} values the spec lists`
        : `${here} is ${shown(data)}, not one of ${allowed.map(shown).join(', ')}`;
    }
    case 'format':
      return `${here} (${shown(data)}) is not ${FORMATS[String(params.format)] ?? `of the format "${String(params.format)}"`}`;
    case 'pattern': {
      const described = describedAs(
        context.nameOf(parent) === undefined ? undefined : error.parentSchema,
      );
      return `${here} (${shown(data)}) is not ${described ?? `of the form /${String(params.pattern)}/`}`;
    }
    case 'if': {
      // The `if` names fields: when they are missing, the record broke `else` (they are missing
      // from a record in the state `then` describes); when present, it broke `then` (it has
      // fields that only a record in that state has).
      const condition = isNode(parent.if) ? parent.if : {};
      const required = Array.isArray(condition.required) ? condition.required.map(String) : [];
      if (required.length === 0) {
        return `${here} breaks the spec's condition (its "${String(params.failingKeyword)}")`;
      }
      if (params.failingKeyword === 'else') {
        const record = isNode(data) ? data : {};
        return required
          .filter((field) => !(field in record))
          .map((field) => `${target(error.instancePath, field)} is missing`)
          .join('; ');
      }
      const then = isNode(parent.then) ? parent.then : {};
      const only =
        typeof then.title === 'string' && kind !== undefined
          ? `, which only ${article(`${then.title} ${kind}`)} has`
          : '';
      return `${here} has ${required.map((f) => `\`${f}\``).join(' and ')}${only}`;
    }
    case 'anyOf':
    case 'oneOf':
      return `${here} (${shown(data)}) has none of the forms the spec allows`;
    case 'false schema':
      return `${here} is present, which the spec does not allow`;
    default:
      return `${here}${data === undefined || isNode(data) ? '' : ` (${shown(data)})`} ${error.message ?? 'is invalid'}`;
  }
}
