// Generated header values shrink toward plain text: a shrunk counterexample keeps a space, a tab or
// a byte beyond ASCII in a header only where the failure needs one, and a byte beyond ASCII it
// needs is a visible letter. Shown on the free-text header of the spec (X-Request-Id), with
// failures that need a long value, and one that needs a character outside printable ASCII.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { Engine } from '../src/engine.js';
import { readSpec } from '../src/spec-reader.js';
import { validValueArb } from '../src/value-arbitraries.js';

const spec = readSpec();
const isRequestId = (name: string) => name.toLowerCase() === 'x-request-id';
const op = spec.operations.find((o) => o.parameters.some((p) => isRequestId(p.name)));
const requestId = op?.parameters.find((p) => isRequestId(p.name));
if (op === undefined || requestId === undefined) throw new Error('the spec has no X-Request-Id');
// A free-text header draws from its schema alone: the engine's world is not read.
const engine = { spec, world: { restaurants: [], employees: [], shifts: [] } } as unknown as Engine;
const values = validValueArb(engine, op, requestId).map((value) => value.text);

/** The value fast-check shrinks a failure to, from a fixed seed. */
function shrunk(fails: (text: string) => boolean): string {
  const details = fc.check(
    fc.property(values, (text) => !fails(text)),
    { numRuns: 2000, seed: 42 },
  );
  const [value] = details.counterexample ?? [];
  if (value === undefined) throw new Error('no generated value fails');
  return value;
}

it('shrinks a value that must be long to letters and digits, nothing around them', () => {
  const value = shrunk((text) => text.trim().length >= 8);
  expect(value).toMatch(/^[A-Za-z0-9]{8}$/);
});

it('shrinks a value that needs a byte beyond ASCII to one visible letter, no tab or space', () => {
  const value = shrunk((text) => /[^\x20-\x7e]/.test(text.trim()));
  // A visible letter beyond ASCII (Latin-1's from À): the one character the failure needs.
  expect(value).toMatch(/^[\u00c0-\u00ff]$/);
});
