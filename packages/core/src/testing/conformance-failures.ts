// The conformance suite's failures, in words a store's author can act on: which port method was
// called, on which record, which field differs, what was expected and what came back.
import type { Result } from 'neverthrow';

/** A value as a failure shows it: `absent`, or its JSON (long strings cut, with their length). */
export function shown(value: unknown): string {
  if (value === undefined) return 'absent';
  if (typeof value === 'string' && value.length > 48) {
    return `\`${JSON.stringify(`${value.slice(0, 24)}…`)}\` (${[...value].length} characters)`;
  }
  const json = JSON.stringify(value) ?? String(value);
  return `\`${json.length > 160 ? `${json.slice(0, 160)}…` : json}\``;
}

/**
 * The value of a port's answer, or a failure that names the call and the error it answered with
 * (never a bare "called _unsafeUnwrap on an Err").
 *
 * @param call - the port method and what it was called for: `employees.find by GUID`
 */
export function expectOk<T, E>(call: string, result: Result<T, E> | undefined): T {
  if (result === undefined) throw new Error(`${call} gave no answer`);
  if (result.isOk()) return result.value;
  throw new Error(`${call} failed with ${shown(result.error)}; it should have succeeded`);
}

/**
 * The value of a finder's answer: the record, or `null` for none. `ok(undefined)`, which a store
 * over a `Map` gives when it answers `ok(map.get(key))`, fails in words rather than as a
 * `TypeError` further on.
 *
 * @param call - the finder and what it was called for: `employees.find(restaurant …, GUID …)`
 */
export function expectFound<T>(
  call: string,
  result: Result<T | null, unknown> | undefined,
): T | null {
  const value = expectOk(call, result);
  if (value === undefined) {
    throw new Error(
      `${call} answered ok(undefined); expected a record or ok(null): a finder answers ok(null) for a record it does not have (for a Map's get, ok(found ?? null))`,
    );
  }
  return value;
}

/** The error of a port's answer that must be an error, or a failure saying what it answered. */
export function expectErr<T, E>(
  call: string,
  result: Result<T, E> | undefined,
  expected: string,
): E {
  if (result === undefined) throw new Error(`${call} gave no answer; expected ${expected}`);
  if (result.isErr()) return result.error;
  throw new Error(`${call} succeeded with ${shown(result.value)}; expected ${expected}`);
}

/** An error of the type asked for, or a failure naming the call, the type and what came back. */
export function expectErrorType<T, E extends { readonly type: string }, K extends E['type']>(
  call: string,
  result: Result<T, E> | undefined,
  type: K,
): Extract<E, { readonly type: K }> {
  const error = expectErr(call, result, type);
  if (error.type !== type) throw new Error(`${call} failed with ${shown(error)}; expected ${type}`);
  return error as Extract<E, { readonly type: K }>;
}

interface Difference {
  readonly path: string;
  readonly actual: unknown;
  readonly expected: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where two values differ: each differing field by its path, as deep as both have the shape. */
function differences(actual: unknown, expected: unknown, path: string): Difference[] {
  if (Object.is(actual, expected)) return [];
  if (isObject(actual) && isObject(expected)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) =>
      differences(actual[key], expected[key], path === '' ? key : `${path}.${key}`),
    );
  }
  if (Array.isArray(actual) && Array.isArray(expected) && actual.length === expected.length) {
    return expected.flatMap((item, i) => differences(actual[i], item, `${path}[${i}]`));
  }
  return [{ path, actual, expected }];
}

/** Where two strings first differ, for values too long to show whole. */
function firstDifference(actual: unknown, expected: unknown): string {
  if (typeof actual !== 'string' || typeof expected !== 'string') return '';
  const a = [...actual];
  const b = [...expected];
  const at = a.findIndex((char, i) => char !== b[i]);
  const index = at === -1 ? Math.min(a.length, b.length) : at;
  return a.length > 48 || b.length > 48 ? ` (first different at character ${index})` : '';
}

/** The record a failure is about: `employee 6a2b…` of `restaurant b7f1…`. */
export function recordName(record: unknown): string {
  if (!isObject(record)) return shown(record);
  return `record ${String(record.guid)} of restaurant ${String(record.restaurantGuid)}`;
}

/**
 * Fails unless `actual` is `expected`, field by field, with one line per differing field: "employees.find
 * by GUID returned `jobReferences` absent; the seeded record has `[]` (record … of restaurant …)".
 *
 * @param call - the port method that returned `actual`, and how it was called
 * @param actual - what it returned
 * @param expected - what it should have returned
 * @param source - where `expected` comes from: `the seeded record`, `the record archive produced`
 */
export function expectSameRecord(
  call: string,
  actual: unknown,
  expected: unknown,
  source: string,
): void {
  const subject = recordName(expected ?? actual);
  const composite = (value: unknown) => typeof value === 'object' && value !== null;
  if (!composite(actual) || !composite(expected)) {
    if (Object.is(actual, expected)) return;
    throw new Error(
      `${call} returned ${actual === null ? '`null`' : shown(actual)}; expected ${
        expected === null ? 'null' : `${source}, ${subject}`
      }`,
    );
  }
  const found = differences(actual, expected, '');
  if (found.length === 0) return;
  const lines = found.map(
    ({ path, actual, expected }) =>
      `${call} returned ${path === '' ? '' : `\`${path}\` `}${shown(actual)}; ${source} has ${shown(expected)}${firstDifference(actual, expected)}`,
  );
  throw new Error(`${lines.join('\n')}${isObject(expected) ? `\n(${subject})` : ''}`);
}
