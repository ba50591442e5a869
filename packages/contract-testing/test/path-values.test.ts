// The kit never sends a dot segment as a path parameter's value: a URL parser removes `.` and `..`
// before the app sees the path (a fetch host answers `GET …/restaurants/.` as `…/restaurants/`),
// so such a value would test the host's URL parser, not the API, and fail where no rule is broken.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine.js';
import { isDotSegment, readSpec } from '../src/spec-reader.js';
import { invalidTextArb, validValueArb } from '../src/value-arbitraries.js';

const spec = readSpec();
// Path values draw on the world's identifiers as well: none here, the schema's text alone.
const engine = { spec, world: { restaurants: [], employees: [], shifts: [] } } as unknown as Engine;
const pathParameters = spec.operations.flatMap((op) =>
  op.parameters.filter((p) => p.in === 'path').map((p) => [`${op.id} ${p.name}`, op, p] as const),
);

describe.each(pathParameters)('%s', (_name, op, p) => {
  it('is never drawn as `.` or `..`, valid or not', () => {
    const texts = [validValueArb(engine, op, p).map((value) => value.text)];
    const invalid = invalidTextArb(spec, p);
    if (invalid !== undefined) texts.push(invalid);
    for (const arb of texts) {
      const found = fc.check(
        fc.property(arb, (text) => !isDotSegment(text)),
        { numRuns: 20_000, seed: 7 },
      );
      expect(found.counterexample, 'a dot segment drawn').toBeNull();
    }
  });
});
