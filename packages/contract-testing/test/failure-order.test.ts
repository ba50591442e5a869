// The text report lists the failures the most direct evidence of a fault first: one store bug
// often breaks several properties, and the first failure a reader meets should be the one that
// shows it in the answer to a request of its own counterexample, not one that met it by reading a
// record back after a refusal, nor one that did not reproduce.
import { formatReport, type PropertyResult, type Report } from '@workforce-kit/contract-testing';
import { expect, it } from 'vitest';

const failure = (name: string, extra: Partial<PropertyResult>): PropertyResult => ({
  name,
  group: 'stateless',
  summary: name,
  status: 'failed',
  runs: 1,
  requests: 1,
  durationMs: 1,
  rule: 'documented-body',
  ruleText: 'the body matches the documented response schema',
  message: `the message of ${name}`,
  reproduced: true,
  ...extra,
});

const reportOf = (results: readonly PropertyResult[]): Report => ({
  ok: false,
  passed: 0,
  failed: results.length,
  notApplicable: 0,
  undecided: 0,
  results,
  requests: results.length,
  rateLimited: 0,
  rateLimitWaitMs: 0,
  hungUp: 0,
  statuses: {},
  durationMs: 1,
  rngSeed: 1,
  runs: 1,
  shrinkTimeLimitMs: 1,
  baseUrl: 'http://127.0.0.1:1/',
  coverage: {
    operations: {},
    rules: {} as Report['coverage']['rules'],
    unseen: [],
    changes: {},
    thinEvidence: [],
  },
});

/** The names of the failures in full, in the order the text report gives them. */
const failuresInFull = (text: string) =>
  text
    .split('\n')
    .flatMap((line, i, lines) =>
      line.startsWith('✘ ') && lines[i + 1]?.startsWith('  rule ') ? [line.slice(2)] : [],
    );

it('lists a failure seen directly first, then one that did not reproduce, then one read back, the kit’s own error last', () => {
  const text = formatReport(
    reportOf([
      failure('kit-error', { rule: 'error' }),
      failure('read-back', { readBack: true, rule: 'documented-body' }),
      failure('unreproduced', { reproduced: false }),
      failure('direct', {}),
      failure('read-back-unreproduced', { readBack: true, reproduced: false }),
      failure('direct-too', { rule: 'deleted-date' }),
    ]),
  );
  expect(failuresInFull(text)).toEqual([
    'direct',
    'direct-too',
    'read-back',
    'unreproduced',
    'read-back-unreproduced',
    'kit-error',
  ]);
  expect(text).toContain('failures, the most direct evidence of a fault first:');
});

it('keeps the run order of failures that are equally direct, and the one-line list as run', () => {
  const results = [failure('b', {}), failure('a', {}), failure('c', {})];
  const text = formatReport(reportOf(results));
  expect(failuresInFull(text)).toEqual(['b', 'a', 'c']);
  const lines = text.split('\n');
  expect(lines.slice(0, 3).map((line) => line.split('  ')[0])).toEqual(['✘ b', '✘ a', '✘ c']);
});
