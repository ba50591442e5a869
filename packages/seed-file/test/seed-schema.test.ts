// The seed file's JSON Schema as users get it: a file of the package, and SEED_FILE_SCHEMA. A
// validator of the user's own (ajv with its defaults, strict mode included) compiles it; it accepts
// the demo seed and every seed the parser accepts, refuses every seed the parser refuses but for
// the rules beyond a schema its description lists, and agrees with the parser on seeds generated
// and then broken at random. docs/contract.md shows every field of it.
import { readFileSync } from 'node:fs';
import { IDENTIFIER_PATTERNS } from '@workforce-kit/core';
import { parseSeed, SCOPES, SEED_FILE_SCHEMA } from '@workforce-kit/seed-file';
import schemaFile from '@workforce-kit/seed-file/seed.schema.json' with { type: 'json' };
import { seedToJson } from '@workforce-kit/seed-file/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedArb } from './seed-arbitrary.js';
import { refusals } from './seed-cases.js';

const ajv = new Ajv2020({ allErrors: true });
addFormatsModule.default(ajv);
const validate = ajv.compile(SEED_FILE_SCHEMA);
/** Whether the schema accepts `json`, by a validator that is not the parser's. */
const schemaAccepts = (json: unknown) => validate(structuredClone(json)) === true;

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const demoSeed: unknown = JSON.parse(read('../../server/seed/demo-seed.json'));

/**
 * The messages of the rules the parser keeps beyond the schema: repeats, owners, a weekSchedule
 * day's day schedule, and what the runtime knows (time zones, currencies, dates).
 */
const BEYOND_SCHEMA = [
  /^is a duplicate/,
  /^names no restaurant of the seed$/,
  /^names ".*", which is not a key of daySchedules$/,
  /^must be an IANA time zone name$/,
  /^must be an ISO 4217 code$/,
  /^must be a date yyyyMMdd$/,
  /^must fall within the years 0000 to 9999 in UTC$/,
];

/** `$defs` of the schema, by name. */
const defs = SEED_FILE_SCHEMA.$defs as Record<string, { pattern?: string; [k: string]: unknown }>;

describe('the schema, as published', () => {
  it('is the file the package exports as @workforce-kit/seed-file/seed.schema.json', () => {
    expect(schemaFile).toStrictEqual(SEED_FILE_SCHEMA);
    expect(SEED_FILE_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('is the schema the demo seed names for its editor', () => {
    const named = (demoSeed as { $schema: string }).$schema;
    const file = JSON.parse(read(`../../server/seed/${named}`));
    expect(file).toStrictEqual(SEED_FILE_SCHEMA);
  });

  it("states the core's identifier patterns and the seed's scopes", () => {
    expect(defs.guid?.pattern).toBe(IDENTIFIER_PATTERNS.guid);
    expect(defs.externalId?.pattern).toBe(IDENTIFIER_PATTERNS.externalId);
    const client = defs.client as { properties: { scopes: { items: { enum: unknown[] } } } };
    expect(client.properties.scopes.items.enum).toEqual([...SCOPES]);
  });
});

describe('the schema and the parser', () => {
  it('accept the demo seed', () => {
    expect(validate(structuredClone(demoSeed)), JSON.stringify(validate.errors)).toBe(true);
    expect(parseSeed(demoSeed, new Date()).isOk()).toBe(true);
  });

  it('accept every seed the parser writes back', () => {
    fc.assert(
      fc.property(seedArb(), (seed) => {
        const json = seedToJson(seed);
        expect(schemaAccepts(json), JSON.stringify(validate.errors)).toBe(true);
      }),
      { numRuns: 50 },
    );
  }, 60_000);

  it.each(refusals)('refuse $name, unless a rule beyond the schema refuses it', (refusal) => {
    const issues = parseSeed(refusal.json, new Date()).match(
      () => [],
      (invalid) => invalid.issues,
    );
    expect(issues).not.toEqual([]);
    expect(schemaAccepts(refusal.json)).toBe(refusal.beyondSchema === true);
    if (refusal.beyondSchema) {
      for (const issue of issues) {
        expect(
          BEYOND_SCHEMA.some((rule) => rule.test(issue.message)),
          issue.message,
        ).toBe(true);
      }
    }
  });

  it('agree on seeds broken at random: the parser refuses whatever the schema refuses, and more only by the rules beyond it', () => {
    // Every path of a seed's JSON, to replace or remove the value at one of them.
    const pathsOf = (value: unknown, path: (string | number)[] = []): (string | number)[][] => {
      if (value === null || typeof value !== 'object') return [path];
      const children = Array.isArray(value)
        ? value.map((item, i) => pathsOf(item, [...path, i]))
        : Object.entries(value).map(([key, item]) => pathsOf(item, [...path, key]));
      return [path, ...children.flat()];
    };
    // Small seeds: a break reaches one entry, whatever the others.
    const broken = seedArb({ maxRestaurants: 2, maxRecordsPerRestaurant: 2 }).chain((seed) => {
      const json = seedToJson(seed);
      const paths = pathsOf(json).filter((path) => path.length > 0);
      return fc.tuple(
        fc.constant(json),
        fc.constantFrom(...paths),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
      );
    });
    let refusedBySchema = 0;
    fc.assert(
      fc.property(broken, ([json, path, value]) => {
        const copy = structuredClone(json) as Record<string | number, unknown>;
        let parent: Record<string | number, unknown> = copy;
        for (const key of path.slice(0, -1)) {
          parent = parent[key] as Record<string | number, unknown>;
        }
        const last = path.at(-1) as string | number;
        if (value === undefined && !Array.isArray(parent)) delete parent[last];
        else parent[last] = value ?? null;
        const parsed = parseSeed(copy, new Date());
        if (!schemaAccepts(copy)) {
          refusedBySchema++;
          expect(parsed.isErr(), JSON.stringify(validate.errors)).toBe(true);
        } else if (parsed.isErr()) {
          for (const issue of parsed.error.issues) {
            expect(
              BEYOND_SCHEMA.some((rule) => rule.test(issue.message)),
              issue.message,
            ).toBe(true);
          }
        }
      }),
      { numRuns: 100 },
    );
    // The breaks reach the schema: not every one is a value it takes.
    expect(refusedBySchema).toBeGreaterThan(0);
  }, 60_000);
});

/** Every property name the schema defines, at any depth. */
function propertyNames(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) propertyNames(item, into);
  else if (node !== null && typeof node === 'object') {
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === 'properties' && value !== null && typeof value === 'object') {
        for (const name of Object.keys(value)) into.add(name);
      }
      propertyNames(value, into);
    }
  }
  return into;
}

describe("docs/contract.md's seed file section", () => {
  const contract = read('../../../docs/contract.md');
  const section = contract.slice(contract.indexOf('## Seed file'), contract.indexOf('## Limits'));
  const example: unknown = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)?.[1] ?? 'null');

  it('shows a seed file with every field of the schema', () => {
    const missing = [...propertyNames(SEED_FILE_SCHEMA)].filter((name) => !hasKey(example, name));
    expect(missing).toEqual([]);
  });

  it('shows one that the schema and the parser accept', () => {
    expect(schemaAccepts(example), JSON.stringify(validate.errors)).toBe(true);
    const parsed = parseSeed(example, new Date());
    expect(parsed.isOk(), parsed.isErr() ? JSON.stringify(parsed.error) : '').toBe(true);
  });
});

/** Whether `value` has the key `name` at any depth. */
function hasKey(value: unknown, name: string): boolean {
  if (Array.isArray(value)) return value.some((item) => hasKey(item, name));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => key === name || hasKey(item, name));
}
