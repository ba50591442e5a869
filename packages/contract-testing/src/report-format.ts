// A report as people and CI servers read it: one line per property, each failure with its rule,
// its minimal counterexample and the curl commands that replay it, and what the run covered; as
// text, JSON and JUnit XML.
import { MIN_CHANGES } from './change-evidence.js';
import type { Report } from './check-api-contract.js';
import type { Coverage } from './coverage.js';
import { formatEventCounts } from './events-result.js';
import { causeFirst } from './failure-order.js';
import type { PropertyResult } from './property-runner.js';

/** A duration as a report says it: `1.2 s`. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A report's counts as its totals line says them: `12 passed, 1 failed, 2 undecided`. */
export function countsOf(report: Report): string {
  const undecided = report.undecided > 0 ? `, ${report.undecided} undecided` : '';
  return `${report.passed} passed, ${report.failed} failed${undecided}`;
}

/** The one line of a property. */
export function formatResultLine(result: PropertyResult): string {
  if (result.status === 'passed' && result.group === 'events') {
    return `✔ ${result.name}  (${result.message})`;
  }
  if (result.status === 'passed') {
    return `✔ ${result.name}  (${result.runs} runs, ${result.requests} requests, ${seconds(result.durationMs)})`;
  }
  if (result.status === 'not-applicable')
    return `- ${result.name}  not applicable: ${result.message}`;
  if (result.status === 'undecided') return `? ${result.name}  undecided: ${result.message}`;
  const unreproduced = result.reproduced === false ? ' (did not reproduce on replay)' : '';
  return `✘ ${result.name}  broke ${result.rule}: ${result.ruleText}${unreproduced}`;
}

/** A failure in full: the rule, what happened, the counterexample, how to replay it. */
export function formatFailure(result: PropertyResult): string {
  const lines = [
    `✘ ${result.name}`,
    `  rule ${result.rule}: ${result.ruleText}`,
    `  ${result.message?.replaceAll('\n', '\n  ')}`,
    `  ${result.runs} runs, ${result.requests} requests, ${seconds(result.durationMs)} (shrinking and the replay included)`,
  ];
  if (result.counterexample !== undefined) {
    const limit = result.shrinkTimeLimitReached ? ', stopped at the time limit' : '';
    lines.push(`  shrunk (${result.shrinks} steps${limit}) to: ${result.counterexample}`);
  }
  if (result.reproduced === false) {
    lines.push(
      result.replayFromSameState
        ? '  did not reproduce on replay: run again from the same state, the counterexample kept every rule; the fault depends on what the target went through before (its history)'
        : '  did not reproduce on replay: run again on the target as the failing run left it (a live target cannot undo a shift delete), the counterexample kept every rule; the fault may depend on the target’s state or history',
    );
  } else if (result.replayBroke !== undefined) {
    lines.push(`  on replay, the counterexample broke ${result.replayBroke} instead`);
  }
  if (result.seed !== undefined) {
    lines.push(
      `  fast-check seed ${result.seed}${result.path === undefined ? '' : `, path "${result.path}"`}`,
    );
  }
  if (result.replay !== undefined && result.replay.length > 0) {
    lines.push(
      '  replay (against a freshly seeded target; tokens expire 15 minutes after the run):',
      ...result.replay.map((line) => `    ${line}`),
    );
  }
  return lines.join('\n');
}

/**
 * The coverage as text: a line per operation with each status seen and its answers (declared
 * statuses not seen marked `-`), the checks of each rule, each declared status not seen with why
 * the kit cannot provoke it, then a line per property with the changes it ran, and the warnings
 * where they were too few.
 */
export function formatCoverage(coverage: Coverage): string {
  const out = ['coverage (status: answers; declared statuses never seen: -):'];
  const width = Math.max(...Object.keys(coverage.operations).map((id) => id.length));
  for (const [id, statuses] of Object.entries(coverage.operations)) {
    const cells = Object.entries(statuses).map(([s, n]) => `${s}: ${n === 0 ? '-' : n}`);
    out.push(`  ${id.padEnd(width)}  ${cells.join(', ')}`);
  }
  out.push(
    'rules checked (answers held to each):',
    ...wrap(Object.entries(coverage.rules).map(([rule, n]) => `${rule} ${n}`)),
  );
  // The unseen by reason, then by status: `503 of every operation: why`.
  const byReason = new Map<string, Map<string, string[]>>();
  for (const { operationId, status, reason } of coverage.unseen) {
    const why = reason ?? 'reachable, and this run did not provoke it';
    const statuses = byReason.get(why) ?? new Map<string, string[]>();
    statuses.set(status, [...(statuses.get(status) ?? []), operationId]);
    byReason.set(why, statuses);
  }
  if (byReason.size > 0) out.push('declared, never seen:');
  const operationCount = Object.keys(coverage.operations).length;
  for (const [why, statuses] of byReason) {
    const which = [...statuses].map(([status, ids]) =>
      ids.length === operationCount
        ? `${status} of every operation`
        : `${status} of ${ids.join(', ')}`,
    );
    out.push(`  ${which.join('; ')}: ${why}`);
  }
  out.push(...formatChanges(coverage));
  return out.join('\n');
}

/** The changes of each property that sent any (`archiveEmployee 12 of 40`), then the warnings. */
function formatChanges(coverage: Coverage): string[] {
  const sent = Object.entries(coverage.changes).filter(([, byOperation]) =>
    Object.values(byOperation).some((count) => count.reached > 0),
  );
  if (sent.length === 0) return [];
  const width = Math.max(...sent.map(([property]) => property.length));
  const out = [
    'changes run against a record they change, of the calls that reached one (in concurrent.races: raced, of the calls on a branch):',
    ...sent.map(([property, byOperation]) => {
      const cells = Object.entries(byOperation).map(
        ([id, count]) => `${id} ${count.changed} of ${count.reached}`,
      );
      return `  ${property.padEnd(width)}  ${cells.join(', ')}`;
    }),
  ];
  if (coverage.thinEvidence.length > 0) {
    out.push(
      `thin evidence (a kind of change the stateful or concurrent group ran fewer than ${MIN_CHANGES} times):`,
      ...coverage.thinEvidence.map((thin) => `  ${thin.message}`),
    );
  }
  return out;
}

/** Items joined with commas into indented lines of at most 100 characters. */
function wrap(items: readonly string[]): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    if (line !== '' && line.length + item.length + 2 > 98) {
      lines.push(`  ${line},`);
      line = '';
    }
    line = line === '' ? item : `${line}, ${item}`;
  }
  if (line !== '') lines.push(`  ${line}`);
  return lines;
}

/**
 * What 429s cost a run, and what to do about it: a line, when the target answered any. A 429 is
 * waited out and the request sent again, so a target whose limits are lower than the kit's pace
 * makes a run slow rather than failed. Raising the limits comes first: `--rate` paces every
 * request, which can cost more than the waits (docs/contract-testing.md).
 */
function formatRateLimits(report: Report): string | undefined {
  if (report.rateLimited === 0) return undefined;
  const share = report.durationMs > 0 ? report.rateLimitWaitMs / report.durationMs : 0;
  return `rate limits slowed the run: ${report.rateLimited} requests answered 429, waited out for ${seconds(report.rateLimitWaitMs)} of its ${seconds(report.durationMs)} (${Math.round(share * 100)}%); raise the limits of the target under test, or keep under them with --rate N (the rate option), which paces every request`;
}

/** What the run made of the deployment's events, or, once, that it did not check them. */
export function formatEvents(report: Report): string {
  return report.events === undefined
    ? EVENTS_NOT_CHECKED
    : `events: ${formatEventCounts(report.events)}`;
}

/** With `faults`, how available the target was, counted apart: never a failure. */
export function formatAvailability(report: Report): string | undefined {
  const a = report.availability;
  if (a === undefined) return undefined;
  return `availability (--faults, counted apart, not judged): ${a.unanswered} calls got no answer (a dropped connection, a reset, a timeout), ${a.serviceUnavailable} were answered 503, ${a.runsNotJudged} runs were ended unjudged by such a call; only safety was judged`;
}

/** What a report says when the run was given no events. */
export const EVENTS_NOT_CHECKED =
  "events not checked: the kit was given no event source (--webhooks-listen, or the events option), so no change's event was held to the call that made it";

/**
 * The text report: a line per property, the failures in full (the most direct evidence of a
 * fault first), the coverage, the totals (and, when asked, whether the coverage is full; when
 * 429s slowed the run, what they cost), then `N passed, M failed`.
 */
export function formatReport(report: Report, { lines = true }: { readonly lines?: boolean } = {}) {
  const out: string[] = [];
  if (lines) out.push(...report.results.map(formatResultLine));
  const failures = causeFirst(report.results);
  if (failures.length > 1) out.push('', 'failures, the most direct evidence of a fault first:');
  if (failures.length > 0) out.push('', ...failures.map(formatFailure), '');
  out.push(formatCoverage(report.coverage));
  if (report.minCoverage !== undefined) {
    out.push(
      report.minCoverage.met
        ? 'minimum coverage met: every declared status the kit can provoke seen, every rule checked, no thin evidence'
        : `minimum coverage not met: ${report.minCoverage.gaps.join('; ')}`,
    );
  }
  out.push(formatEvents(report));
  const availability = formatAvailability(report);
  if (availability !== undefined) out.push(availability);
  if (report.hungUp > 0) {
    out.push(
      `the kit hung up on ${report.hungUp} calls of the concurrent group after sending them, before their answer: each indeterminate, its suffix and events said whether it happened`,
    );
  }
  const rateLimits = formatRateLimits(report);
  if (rateLimits !== undefined) out.push(rateLimits);
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  out.push(
    `${report.requests} requests sent to ${report.baseUrl} in ${seconds(report.durationMs)} (${statuses}); rng seed ${report.rngSeed}, ${report.runs} runs${
      report.notApplicable > 0 ? `; ${report.notApplicable} not applicable` : ''
    }`,
  );
  const short = report.minCoverage?.met === false ? ', minimum coverage not met' : '';
  out.push(`${countsOf(report)}${short}`);
  return out.join('\n');
}

const xml = (text: string) =>
  text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD]/gu, '?')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/**
 * The coverage as JUnit properties of the suite: `coverage.status.<operationId>.<status>` (answers),
 * `coverage.rule.<rule>` (checks), `coverage.unseen.<operationId>.<status>` (the reason, or
 * `reachable`), `coverage.changes.<property>.<operationId>` (`changed of reached`),
 * `coverage.thin.<property>.<operationId>` (the warning).
 */
function coverageProperties(coverage: Coverage): string[] {
  const property = (name: string, value: string | number) =>
    `    <property name="${xml(name)}" value="${xml(String(value))}"/>`;
  return [
    '  <properties>',
    ...Object.entries(coverage.operations).flatMap(([id, statuses]) =>
      Object.entries(statuses).map(([s, n]) => property(`coverage.status.${id}.${s}`, n)),
    ),
    ...Object.entries(coverage.rules).map(([rule, n]) => property(`coverage.rule.${rule}`, n)),
    ...coverage.unseen.map((u) =>
      property(`coverage.unseen.${u.operationId}.${u.status}`, u.reason ?? 'reachable'),
    ),
    ...Object.entries(coverage.changes).flatMap(([name, byOperation]) =>
      Object.entries(byOperation).map(([id, count]) =>
        property(`coverage.changes.${name}.${id}`, `${count.changed} of ${count.reached}`),
      ),
    ),
    ...coverage.thinEvidence.map((thin) =>
      property(`coverage.thin.${thin.property}.${thin.operationId}`, thin.message),
    ),
    '  </properties>',
  ];
}

/** The JSON report: the report as is, `coverage` included. */
export const toJsonReport = (report: Report): string => `${JSON.stringify(report, null, 2)}\n`;

/**
 * The report as JUnit XML: the coverage as properties of the suite, a test case per property,
 * and, when the minimum coverage was asked for, a test case `coverage.minimum`.
 */
export function toJUnitXml(report: Report): string {
  const cases = report.results.map((result): string => {
    const open = `  <testcase classname="workforce-kit-contract.${result.group}" name="${xml(result.name)}" time="${(result.durationMs / 1000).toFixed(3)}">`;
    if (result.status === 'passed') return `${open}</testcase>`;
    if (result.status === 'not-applicable') {
      return `${open}\n    <skipped message="${xml(result.message ?? '')}"/>\n  </testcase>`;
    }
    if (result.status === 'undecided') {
      return `${open}\n    <failure message="undecided" type="undecided">${xml(result.message ?? '')}</failure>\n  </testcase>`;
    }
    return `${open}\n    <failure message="${xml(`${result.rule}: ${result.ruleText}`)}" type="${xml(String(result.rule))}">${xml(formatFailure(result))}</failure>\n  </testcase>`;
  });
  const { minCoverage } = report;
  if (minCoverage !== undefined) {
    const open = '  <testcase classname="workforce-kit-contract.coverage" name="coverage.minimum">';
    cases.push(
      minCoverage.met
        ? `${open}</testcase>`
        : `${open}\n    <failure message="minimum coverage not met" type="min-coverage">${xml(minCoverage.gaps.join('\n'))}</failure>\n  </testcase>`,
    );
  }
  const failures = report.failed + report.undecided + (minCoverage?.met === false ? 1 : 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="workforce-kit-contract" tests="${cases.length}" failures="${failures}" skipped="${report.notApplicable}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...coverageProperties(report.coverage),
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
