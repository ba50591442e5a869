// An answer held to the one the oracle expects: the problem, or the record or restaurant with its
// fields, its dates and its `deleted` flag as the state tables say: a change sets modifiedDate
// (and deletedDate, for an archive or a delete) to its time, a no-op leaves every date as it was.
import { isDeepStrictEqual } from 'node:util';
import { type Answer, jsonOf } from './answer-checks.js';
import { changeTimeOf } from './change-time.js';
import type { RuleName } from './rules.js';
import type { SpecOperation } from './spec-reader.js';
import type { Expected } from './state-oracle.js';
import { DATE_FIELDS, type Knowledge, type WorldRecord } from './world.js';

/** The dates an archive or a delete sets. */
const DATES_SET = ['modifiedDate', 'deletedDate'] as const;

function describeDiff(
  got: Readonly<Record<string, unknown>>,
  want: Readonly<Record<string, unknown>>,
) {
  const keys = [...new Set([...Object.keys(got), ...Object.keys(want)])];
  return keys
    .filter((key) => !isDeepStrictEqual(got[key], want[key]))
    .map(
      (key) =>
        `${key}: ${key in got ? JSON.stringify(got[key]) : '(absent)'}, expected ${key in want ? JSON.stringify(want[key]) : '(absent)'}`,
    )
    .join('; ');
}

/** The JSON object an answer's body holds (empty when it holds none). */
export function bodyOf(answer: Answer): Readonly<Record<string, unknown>> {
  const json = jsonOf(answer.response);
  return json !== null && typeof json === 'object' ? { ...json } : {};
}

/**
 * Holds a record's body to what no call changes: it is `record` (rule `rule`), with the seed's
 * fields, and deletedDate present exactly when it says deleted; with `deleted`, it says that.
 */
export function checkRecordBody(
  answer: Answer,
  body: Readonly<Record<string, unknown>>,
  record: WorldRecord,
  { rule, deleted }: { readonly rule: RuleName; readonly deleted?: boolean },
): void {
  answer.check(
    body.guid === record.guid,
    rule,
    () => `expected the record ${record.guid}: ${answer.show()}`,
  );
  if (deleted !== undefined) {
    answer.check(
      body.deleted === deleted,
      rule,
      () => `expected deleted: ${deleted}: ${answer.show()}`,
    );
  }
  const fields = Object.fromEntries(
    Object.entries(body).filter(
      ([key]) => !(DATE_FIELDS as readonly string[]).includes(key) && key !== 'deleted',
    ),
  );
  answer.check(
    isDeepStrictEqual(fields, record.fields),
    'record-fields',
    () => `${record.guid}: ${describeDiff(fields, record.fields)}`,
  );
  answer.check('deletedDate' in body === (body.deleted === true), 'deleted-date');
}

/** Holds `answer` to `expected` in the state `knowledge` describes; throws a Violation. */
export function checkExpected(
  answer: Answer,
  op: SpecOperation,
  expected: Expected,
  knowledge: Knowledge,
): void {
  // The state tables first, so that a wrong answer is named by the rule it breaks.
  answer.check(answer.status < 500, 'no-server-error');
  if (expected.kind === 'problem') {
    answer.problem(expected.rule, expected.status, expected.code);
    answer.documented(op);
    return;
  }
  answer.check(
    answer.status === 200,
    expected.kind === 'record' ? expected.rule : 'restaurant-read',
    () => `expected 200: ${answer.show()}`,
  );
  answer.documented(op);
  if (answer.request.method === 'HEAD') return;
  const body = bodyOf(answer);
  if (expected.kind === 'restaurant') {
    const want = expected.restaurant.fields;
    answer.check(
      isDeepStrictEqual(body, want),
      'restaurant-read',
      () => `the restaurant differs from the seed: ${describeDiff(body, want)}`,
    );
    return;
  }
  const { record, transition, rule } = expected;
  const before = knowledge.get(record.guid) ?? { deleted: record.seedDeleted, dates: {} };
  const deleted = transition === 'none' ? before.deleted : transition !== 'unarchive';
  checkRecordBody(answer, body, record, { rule, deleted });
  const known = before.dates;
  if (known.createdDate !== undefined) {
    answer.check(
      body.createdDate === known.createdDate,
      'record-fields',
      () => `createdDate changed from ${known.createdDate}: ${answer.show()}`,
    );
  }
  if (transition !== 'none') {
    // A change sets modifiedDate (and an archive or a delete records deletedDate) to its time:
    // not before the modifiedDate last seen, nor before the request was sent.
    const time = changeTimeOf(answer.response);
    const setDates = transition === 'unarchive' ? (['modifiedDate'] as const) : DATES_SET;
    for (const name of setDates) {
      const rule = name === 'modifiedDate' ? 'modified-date' : 'deleted-date';
      const value = body[name];
      const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      answer.check(
        at >= time.earliest,
        rule,
        () =>
          `${name} ${String(value)} is before the request was sent (${new Date(time.earliest).toISOString()}, from ${time.basis}): ${answer.show()}`,
      );
      const seen = known.modifiedDate;
      if (seen !== undefined) {
        answer.check(
          at >= Date.parse(seen),
          rule,
          () =>
            `${name} ${String(value)} is before the modifiedDate last seen, ${seen}: ${answer.show()}`,
        );
      }
    }
  } else {
    for (const name of ['modifiedDate', 'deletedDate'] as const) {
      if (known[name] !== undefined) {
        answer.check(
          body[name] === known[name],
          rule,
          () => `${name} changed from ${known[name]} to ${String(body[name])}: ${answer.show()}`,
        );
      }
    }
  }
}
