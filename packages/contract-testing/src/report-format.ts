// A report as people and CI servers read it: one line per property, each failure with its rule,
// its minimal counterexample and the curl commands that replay it; JSON; JUnit XML.
import type { Report } from './check-api-contract.js';
import type { PropertyResult } from './property-runner.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The one line of a property. */
export function formatResultLine(result: PropertyResult): string {
  if (result.status === 'passed') {
    return `✔ ${result.name}  (${result.runs} runs, ${result.requests} requests, ${seconds(result.durationMs)})`;
  }
  if (result.status === 'not-applicable')
    return `- ${result.name}  not applicable: ${result.message}`;
  return `✘ ${result.name}  broke ${result.rule}: ${result.ruleText}`;
}

/** A failure in full: the rule, what happened, the counterexample, how to replay it. */
export function formatFailure(result: PropertyResult): string {
  const lines = [
    `✘ ${result.name}`,
    `  rule ${result.rule}: ${result.ruleText}`,
    `  ${result.message?.replaceAll('\n', '\n  ')}`,
  ];
  if (result.counterexample !== undefined) {
    lines.push(`  shrunk (${result.shrinks} steps) to: ${result.counterexample}`);
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

/** The text report: a line per property, the failures in full, the totals, then `N passed, M failed`. */
export function formatReport(report: Report, { lines = true }: { readonly lines?: boolean } = {}) {
  const out: string[] = [];
  if (lines) out.push(...report.results.map(formatResultLine));
  const failures = report.results.filter((r) => r.status === 'failed');
  if (failures.length > 0) out.push('', ...failures.map(formatFailure), '');
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  out.push(
    `${report.requests} requests sent to ${report.baseUrl} in ${seconds(report.durationMs)} (${statuses}${
      report.rateLimited > 0 ? `; ${report.rateLimited} answered 429 and were sent again` : ''
    }); rng seed ${report.rngSeed}, ${report.runs} runs${
      report.notApplicable > 0 ? `; ${report.notApplicable} not applicable` : ''
    }`,
  );
  out.push(`${report.passed} passed, ${report.failed} failed`);
  return out.join('\n');
}

const xml = (text: string) =>
  text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD]/gu, '?')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** The report as JUnit XML: a test case per property. */
export function toJUnitXml(report: Report): string {
  const cases = report.results.map((result) => {
    const open = `  <testcase classname="workforce-kit-contract.${result.group}" name="${xml(result.name)}" time="${(result.durationMs / 1000).toFixed(3)}">`;
    if (result.status === 'passed') return `${open}</testcase>`;
    if (result.status === 'not-applicable') {
      return `${open}\n    <skipped message="${xml(result.message ?? '')}"/>\n  </testcase>`;
    }
    return `${open}\n    <failure message="${xml(`${result.rule}: ${result.ruleText}`)}" type="${xml(String(result.rule))}">${xml(formatFailure(result))}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="workforce-kit-contract" tests="${report.results.length}" failures="${report.failed}" skipped="${report.notApplicable}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
