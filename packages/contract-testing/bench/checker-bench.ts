// The linearizability checker's cost (`pnpm --filter @workforce-kit/contract-testing bench`):
// histories of 10, 50 and 200 calls on one record, and on each of 20 records, made as the
// concurrent group's are (unarchives and archives in rounds of 4 overlapping calls, the answers
// those of a random order of each round) and checked as the group checks them. Each is checked as
// it is (linearizable), with a last call whose answer no order gives (not linearizable: every
// order is tried before the verdict), and with one call in ten indeterminate. The baseline, measured in
// the same run, is the same calls stepped once each through the model in the order they were
// made: no search. Budgets (the process exits 1 when one is not met): every history decided within
// the default bound (never undecided); at most 16 model steps per call (machine-independent: the
// memo keeps a round of 4 overlapping calls to its 2^4 subsets); at most 50 times the baseline's
// time for a linearizable history (what a correct target gives), 200 times for one that is not
// (every order tried, then the failure explained).
import type { HistoryCall, RaceRecord } from '../src/concurrent-history.js';
import type { ChangeAnswer, RecordModelState } from '../src/record-model.js';

// The package as built (`pnpm run build` first; its types are the source's): what users run.
const built = (name: string) => new URL(`../dist/${name}.js`, import.meta.url).href;
const { checkHistory } = (await import(
  built('concurrent-history')
)) as typeof import('../src/concurrent-history.js');
const { DEFAULT_MAX_STEPS } = (await import(
  built('linearizability')
)) as typeof import('../src/linearizability.js');
const { recordModel, UNKNOWN_DATE } = (await import(
  built('record-model')
)) as typeof import('../src/record-model.js');
const { raceReport } = (await import(
  built('race-report')
)) as typeof import('../src/race-report.js');

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const WIDTH = 4;
const STEPS_PER_CALL = 16;
/** A history a correct target gives: at most this many times a sequential pass. */
const RATIO = 50;
/** A failure (searched through, then explained): at most this many times a sequential pass. */
const FAILURE_RATIO = 200;

/** A small seeded generator (mulberry32): the same histories on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CREATED = new Date(T0 - 1e9).toISOString();
const START: RecordModelState = {
  deleted: true,
  createdDate: { value: CREATED },
  modifiedDate: { value: new Date(T0 - 1000).toISOString() },
  deletedDate: { value: new Date(T0 - 1000).toISOString() },
};

type Variant = 'linearizable' | 'one answer impossible' | 'one in ten indeterminate';

/** `calls` calls on `record`, in rounds of 4 overlapping ones, answered as some order of each round. */
function history(
  record: RaceRecord,
  calls: number,
  next: () => number,
  variant: Variant,
): HistoryCall[] {
  const out: HistoryCall[] = [];
  let deleted = START.deleted;
  let modified = START.modifiedDate as { value: string };
  let removed: string | undefined = (START.deletedDate as { value: string }).value;
  for (let round = 0; out.length < calls; round++) {
    const base = round * 10;
    const made = Array.from({ length: Math.min(WIDTH, calls - out.length) }, (_, lane) => {
      const invokedAt = base + next();
      const completedAt = invokedAt + 2 + 2 * next();
      const at = invokedAt + (completedAt - invokedAt) * next();
      return { lane: lane + 1, invokedAt, completedAt, at, unarchive: next() < 0.5 };
    });
    for (const call of [...made].sort((a, b) => a.at - b.at)) {
      const date = new Date(T0 + Math.floor(call.at)).toISOString();
      let answer: ChangeAnswer;
      if (call.unarchive) {
        answer = deleted
          ? { status: 200, deleted: false, createdDate: CREATED, modifiedDate: date }
          : { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' };
        if (deleted) {
          deleted = false;
          modified = { value: date };
          removed = undefined;
        }
      } else {
        if (!deleted) {
          deleted = true;
          modified = { value: date };
          removed = date;
        }
        answer = {
          status: 200,
          deleted: true,
          createdDate: CREATED,
          modifiedDate: modified.value,
          deletedDate: removed as string,
        };
      }
      const indeterminate = variant === 'one in ten indeterminate' && next() < 0.1;
      out.push({
        phase: 'branch',
        lane: call.lane,
        record,
        kind: call.unarchive ? 'unarchive' : 'archive',
        byExternalId: false,
        invokedAt: call.invokedAt,
        completedAt: call.completedAt,
        determinate: !indeterminate,
        answer,
        noAnswer: undefined,
        earliest: T0 + call.invokedAt - 1000,
      });
    }
  }
  out.sort((a, b) => a.invokedAt - b.invokedAt);
  if (variant === 'one answer impossible') {
    // A last archive, sent after every other call answered, with dates from the day before: no
    // state gives them (a no-op answers the current ones, a change later ones), so every order is
    // tried before the verdict.
    const after = Math.max(...out.map((c) => c.completedAt as number)) + 1;
    const before = new Date(T0 - 86_400_000).toISOString();
    out.push({
      phase: 'suffix',
      lane: 0,
      record,
      kind: 'archive',
      byExternalId: false,
      invokedAt: after,
      completedAt: after + 1,
      determinate: true,
      answer: {
        status: 200,
        deleted: true,
        createdDate: CREATED,
        modifiedDate: before,
        deletedDate: before,
      },
      noAnswer: undefined,
      earliest: T0 - 2 * 86_400_000,
    });
  }
  return out;
}

/** The baseline: each call stepped once through the model, in the order it was made, no search. */
function sequential(calls: readonly HistoryCall[]): void {
  const model = recordModel('employee');
  const states = new Map<string, RecordModelState>();
  for (const call of calls) {
    const state = states.get(call.record.guid) ?? START;
    const step = model.step(
      state,
      { kind: call.kind, answer: call.answer, earliest: call.earliest },
      call.determinate,
    );
    states.set(call.record.guid, step.ok ? step.next : { ...state, modifiedDate: UNKNOWN_DATE });
  }
}

/**
 * The median time of one call of `fn`, in ms: after 200 ms of warm-up, over batches of calls long
 * enough (2 ms at least) for the clock, for at least 300 ms.
 */
function time(fn: () => void): number {
  const warm = performance.now() + 200;
  let batch = 1;
  while (performance.now() < warm) {
    const started = performance.now();
    for (let i = 0; i < batch; i++) fn();
    if (performance.now() - started < 2) batch *= 2;
  }
  const samples: number[] = [];
  const until = performance.now() + 300;
  while (samples.length < 5 || performance.now() < until) {
    const started = performance.now();
    for (let i = 0; i < batch; i++) fn();
    samples.push((performance.now() - started) / batch);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1] as number;
}

const rows: string[] = [];
let met = true;
for (const records of [1, 20]) {
  for (const perRecord of [10, 50, 200]) {
    for (const variant of [
      'linearizable',
      'one answer impossible',
      'one in ten indeterminate',
    ] as const) {
      const next = random(records * 1000 + perRecord);
      const calls = Array.from({ length: records }, (_, r) =>
        history({ guid: `record-${r}`, kind: 'employee' }, perRecord, next, variant),
      ).flat();
      calls.sort((a, b) => a.invokedAt - b.invokedAt);
      const requests = calls.map((c) => ({
        method: 'PUT',
        path: `/${c.record.guid}`,
        headers: {},
      }));
      /** The check, then, for a failure, the report's words for it (as the group does). */
      const check = () => {
        const verdict = checkHistory(calls, () => [START]);
        if (verdict.kind === 'not-linearizable') raceReport(calls, requests, verdict);
        return verdict;
      };
      const verdict = check();
      const expected = variant === 'one answer impossible' ? 'not-linearizable' : 'linearizable';
      const checker = time(check);
      const baseline = time(() => sequential(calls));
      const ratio = checker / baseline;
      const ok =
        verdict.kind === expected &&
        verdict.steps <= STEPS_PER_CALL * calls.length &&
        verdict.steps < DEFAULT_MAX_STEPS &&
        ratio <= (expected === 'linearizable' ? RATIO : FAILURE_RATIO);
      met &&= ok;
      rows.push(
        `| ${records} | ${perRecord} | ${calls.length} | ${variant} | ${verdict.kind} | ${verdict.steps} | ${checker.toFixed(3)} | ${baseline.toFixed(3)} | ${ratio.toFixed(1)} | ${ok ? 'met' : 'NOT met'} |`,
      );
    }
  }
}
console.log(
  [
    `The checker against a sequential pass over the same calls (budgets: decided within ${DEFAULT_MAX_STEPS} steps; at most ${STEPS_PER_CALL} steps per call; at most ${RATIO} times the baseline's time for a linearizable history, ${FAILURE_RATIO} for one that is not, its explanation included)`,
    '',
    '| records | calls per record | calls | history | verdict | steps | checker (ms) | baseline (ms) | ratio | budget |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
if (!met) process.exitCode = 1;
