// A report as one page to look at: self-contained (its styles, its pictures and its script inline;
// nothing fetched), with the run's totals, every property, each failure in full and, for a race,
// the failing history as a timeline: a lane per connection, a bar per call from when it was sent
// to when it was answered, the calls that cannot be ordered marked, and why no order fits. Then
// what the run covered.
import type { Report } from './check-api-contract.js';
import type { PropertyResult } from './property-runner.js';
import {
  barLabel,
  callWhat,
  eventMarks,
  eventMarkText,
  eventsText,
  laneNames,
  outcomeText,
  type RaceCallReport,
  type RaceReport,
  requestLine,
} from './race-report.js';
import { countsOf, formatAvailability, formatEvents, seconds } from './report-format.js';

const html = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #1d2430; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
.totals { font-size: 1.1rem; } .ok { color: #17663a; } .bad { color: #b42318; } .muted { color: #5b6472; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e3e7ee; vertical-align: top; }
th { font-weight: 600; background: #f4f6f9; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.failed td.status, tr.undecided td.status { color: #b42318; font-weight: 600; } tr.passed td.status { color: #17663a; }
pre { background: #f4f6f9; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: 12px; }
.failure { border: 1px solid #f1c0bb; border-radius: 6px; padding: 0 1rem 1rem; margin: 1rem 0; }
.explanation { font-size: 1.02rem; background: #fff4f2; padding: .6rem .8rem; border-left: 4px solid #b42318; }
svg.timeline { width: 100%; height: auto; background: #fbfcfd; border: 1px solid #e3e7ee; }
svg .lane-label { font-size: 12px; fill: #1d2430; } svg .tick { font-size: 10px; fill: #5b6472; } svg .grid { stroke: #e3e7ee; }
svg .call rect { fill: #cfe0fb; stroke: #4a78c2; } svg .call.indeterminate rect { fill: #fdf0c4; stroke: #a27c00; stroke-dasharray: 4 3; }
svg .call.marked rect { fill: #fbd3ce; stroke: #b42318; stroke-width: 2; } svg .call text { font-size: 11px; fill: #1d2430; pointer-events: none; }
svg .call { cursor: pointer; } svg .call.selected rect { stroke-width: 3; }
svg .event path { fill: #17663a; stroke: #fff; stroke-width: 1; } svg .event.wrong path { fill: #b42318; }
tr.call.marked td:first-child { color: #b42318; font-weight: 600; } tr.call.selected { background: #eef4ff; }
.legend span { display: inline-block; margin-right: 1rem; } .swatch { display: inline-block; width: 14px; height: 10px; margin-right: .3rem; border: 1px solid; vertical-align: middle; }
`;

// Clicking a bar selects its row in the table of calls, and the other way round.
const SCRIPT = `
document.querySelectorAll('[data-race]').forEach(function (race) {
  function select(number) {
    race.querySelectorAll('.call').forEach(function (el) {
      el.classList.toggle('selected', el.getAttribute('data-number') === number);
    });
  }
  race.querySelectorAll('.call').forEach(function (el) {
    el.addEventListener('click', function () { select(el.getAttribute('data-number')); });
  });
});
`;

/** The history of a race as an SVG timeline: a lane per connection, a bar per call. */
function timeline(race: RaceReport): string {
  const lanes = laneNames(race);
  const times = race.calls.flatMap((c) => [
    c.answeredMs ?? c.sentMs,
    ...eventMarks(c).map((mark) => mark.at),
  ]);
  const end = Math.max(...times) * 1.08 || 1;
  const left = 140;
  const width = 960;
  const laneHeight = 38;
  const top = 24;
  const height = top + lanes.length * laneHeight + 8;
  const x = (ms: number) => left + ((width - left - 10) * ms) / end;
  const parts: string[] = [];
  for (let i = 0; i <= 5; i++) {
    const ms = (end * i) / 5;
    parts.push(
      `<line class="grid" x1="${x(ms)}" y1="${top - 6}" x2="${x(ms)}" y2="${height - 4}"/>`,
      `<text class="tick" x="${x(ms)}" y="${top - 10}" text-anchor="middle">${ms.toFixed(1)} ms</text>`,
    );
  }
  for (const [lane, name] of lanes.entries()) {
    const y = top + lane * laneHeight;
    parts.push(
      `<g class="lane" data-lane="${lane}"><text class="lane-label" x="8" y="${y + laneHeight / 2 + 4}">${html(name)}</text></g>`,
    );
  }
  for (const call of race.calls) {
    const from = x(call.sentMs);
    const to = x(call.answeredMs ?? end);
    parts.push(callBar(call, top + call.lane * laneHeight + 7, from, Math.max(2, to - from)));
  }
  // The events after the bars, so that a bar never hides one.
  for (const call of race.calls) {
    parts.push(...eventMarksSvg(call, top + call.lane * laneHeight + 4, x));
  }
  return `<svg class="timeline" viewBox="0 0 ${width} ${height}" role="img" aria-label="the failing history: a lane per connection, a bar per call">${parts.join('')}</svg>`;
}

/** A call's bar in the timeline, at `y` from `from` (px), with its label and its full text. */
function callBar(call: RaceCallReport, y: number, from: number, width: number): string {
  const classes = ['call', call.marked ? 'marked' : '', call.determinate ? '' : 'indeterminate']
    .filter(Boolean)
    .join(' ');
  const answered = call.answeredMs === undefined ? 'no answer' : `answered ${call.answeredMs} ms`;
  const title = `#${call.number} ${callWhat(call)}\n${requestLine(call)}\nsent ${call.sentMs} ms, ${answered}\n${outcomeText(call)}`;
  return `<g class="${classes}" data-number="${call.number}" data-lane="${call.lane}"><title>${html(title)}</title><rect x="${from}" y="${y}" width="${width}" height="24" rx="3"/><text x="${from + 4}" y="${y + 16}">${html(barLabel(call))}</text></g>`;
}

/**
 * A call's events on its lane: a diamond where each arrived (a lost one where its call was
 * answered), red when it is wrong, with its words as its title.
 */
function eventMarksSvg(call: RaceCallReport, y: number, x: (ms: number) => number): string[] {
  return eventMarks(call).map((mark) => {
    const at = x(mark.at);
    const title = `${eventMarkText(call, mark)}${mark.event.id === undefined ? '' : `\n${mark.event.id}`}${mark.event.arrivedMs === undefined ? '' : `\narrived ${mark.event.arrivedMs} ms`}`;
    return `<g class="event${mark.wrong ? ' wrong' : ''}" data-number="${call.number}" data-mark="${mark.event.mark}"><title>${html(title)}</title><path d="M ${at} ${y} l 6 6 l -6 6 l -6 -6 z"/></g>`;
  });
}

function raceSection(race: RaceReport): string {
  const lanes = laneNames(race);
  const rows = race.calls.map(
    (call) =>
      `<tr class="call${call.marked ? ' marked' : ''}" data-number="${call.number}"><td>${call.marked ? '✘ ' : ''}#${call.number}</td><td>${html(lanes[call.lane] ?? '')}</td><td>${html(callWhat(call))}</td><td><code>${html(requestLine(call))}</code></td><td class="num">${call.sentMs}</td><td class="num">${call.answeredMs ?? '–'}</td><td>${html(outcomeText(call))}${call.determinate ? '' : ' <span class="muted">(indeterminate)</span>'}${html(eventsText(call))}</td></tr>`,
  );
  return `<div class="race" data-race>
<p class="explanation" id="explanation">${html(race.summary)}.</p>
<p>${html(race.detail)}</p>
<div class="legend"><span><i class="swatch" style="background:#cfe0fb;border-color:#4a78c2"></i>a call, from sent to answered</span><span><i class="swatch" style="background:#fbd3ce;border-color:#b42318"></i>cannot be ordered (✘)</span><span><i class="swatch" style="background:#fdf0c4;border-color:#a27c00"></i>indeterminate answer</span>${race.calls.some((c) => c.events !== undefined) ? '<span><i class="swatch" style="background:#17663a;border-color:#17663a"></i>an event, where it arrived</span><span><i class="swatch" style="background:#b42318;border-color:#b42318"></i>an event lost, unexpected or out of order</span>' : ''}</div>
${timeline(race)}
<table class="calls"><thead><tr><th>call</th><th>connection</th><th>what</th><th>request</th><th>sent (ms)</th><th>answered (ms)</th><th>answer</th></tr></thead><tbody>${rows.join('')}</tbody></table>
</div>`;
}

function failureSection(result: PropertyResult): string {
  const parts = [
    `<section class="failure" data-property="${html(result.name)}"><h3>✘ ${html(result.name)}</h3>`,
    `<p><strong>rule ${html(String(result.rule))}</strong>: ${html(result.ruleText ?? '')}</p>`,
  ];
  if (result.race !== undefined) parts.push(raceSection(result.race));
  else parts.push(`<pre>${html(result.message ?? '')}</pre>`);
  const facts = [
    `${result.runs} runs, ${result.requests} requests, ${seconds(result.durationMs)}`,
    result.shrinks === undefined
      ? ''
      : `shrunk in ${result.shrinks} steps${result.shrinkTimeLimitReached ? ' (stopped at the time limit)' : ''}`,
    result.seed === undefined
      ? ''
      : `fast-check seed ${result.seed}${result.path === undefined ? '' : `, path "${html(result.path)}"`}`,
    result.reproduced === false ? 'did not reproduce on replay' : '',
  ].filter(Boolean);
  parts.push(`<p class="muted">${facts.join(' · ')}</p>`);
  if (result.counterexample !== undefined) {
    parts.push(`<p>counterexample: <code>${html(result.counterexample)}</code></p>`);
  }
  if (result.replay !== undefined && result.replay.length > 0) {
    parts.push(
      `<details><summary>replay (curl, against a freshly seeded target)</summary><pre>${html(result.replay.join('\n'))}</pre></details>`,
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}

function coverageSection(report: Report): string {
  const { coverage } = report;
  const statuses = [
    ...new Set(Object.values(coverage.operations).flatMap((s) => Object.keys(s))),
  ].sort();
  const rows = Object.entries(coverage.operations).map(
    ([id, seen]) =>
      `<tr><td>${html(id)}</td>${statuses.map((s) => `<td class="num">${s in seen ? (seen[s] === 0 ? '–' : seen[s]) : ''}</td>`).join('')}</tr>`,
  );
  const rules = Object.entries(coverage.rules).map(
    ([rule, n]) => `<tr><td>${html(rule)}</td><td class="num">${n}</td></tr>`,
  );
  const unseen = coverage.unseen.map(
    (u) =>
      `<tr><td>${html(u.operationId)}</td><td>${html(u.status)}</td><td>${html(u.reason ?? 'reachable, and this run did not provoke it')}</td></tr>`,
  );
  const changes = Object.entries(coverage.changes).flatMap(([property, byOperation]) =>
    Object.entries(byOperation).map(
      ([id, count]) =>
        `<tr><td>${html(property)}</td><td>${html(id)}</td><td class="num">${count.changed}</td><td class="num">${count.reached}</td></tr>`,
    ),
  );
  const thin = coverage.thinEvidence.map((t) => `<li>${html(t.message)}</li>`);
  return `<h2>Coverage</h2>
<p class="muted">Answers by operation and status (–: declared, never seen).</p>
<table class="coverage"><thead><tr><th>operation</th>${statuses.map((s) => `<th>${s}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<details><summary>rules checked (answers held to each)</summary><table><tbody>${rules.join('')}</tbody></table></details>
${unseen.length === 0 ? '' : `<details><summary>declared, never seen</summary><table><tbody>${unseen.join('')}</tbody></table></details>`}
${changes.length === 0 ? '' : `<details><summary>changes run against a record they change (in concurrent.races: raced)</summary><table><thead><tr><th>property</th><th>operation</th><th>changed</th><th>reached</th></tr></thead><tbody>${changes.join('')}</tbody></table></details>`}
${thin.length === 0 ? '' : `<h3>Thin evidence</h3><ul class="thin">${thin.join('')}</ul>`}`;
}

/**
 * The report as one self-contained HTML page (`--report run.html`): the totals, each property,
 * each failure with its replay, a race's history as a timeline of overlapping bars per
 * connection with the calls that cannot be ordered marked, and the coverage.
 *
 * @param report - a report of `checkApiContract`
 * @returns the page's HTML
 */
export function toHtmlReport(report: Report): string {
  const failures = report.results.filter((r) => r.status === 'failed');
  const rows = report.results.map(
    (r) =>
      `<tr class="${r.status}" data-property="${html(r.name)}"><td class="status">${{ passed: '✔ passed', failed: '✘ failed', 'not-applicable': '– not applicable', undecided: '? undecided' }[r.status]}</td><td>${html(r.name)}<br><span class="muted">${html(r.summary)}</span></td><td class="num">${r.runs}</td><td class="num">${r.requests}</td><td class="num">${seconds(r.durationMs)}</td></tr>`,
  );
  const verdict = report.ok ? 'ok' : 'bad';
  const counts = countsOf(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>workforce-kit contract report: ${counts}</title>
<style>${STYLE}</style></head>
<body>
<h1>Contract report</h1>
<p class="totals ${verdict}" id="totals">${counts}${report.minCoverage?.met === false ? ', minimum coverage not met' : ''}</p>
<p class="muted">${html(report.baseUrl)} · ${report.requests} requests in ${seconds(report.durationMs)} · rng seed ${report.rngSeed} · ${report.runs} runs per property</p>
<p class="events" id="events">${html(formatEvents(report))}</p>${
    report.availability === undefined
      ? ''
      : `
<p class="availability" id="availability">${html(formatAvailability(report) ?? '')}</p>`
  }
<h2>Properties</h2>
<table class="properties"><thead><tr><th>status</th><th>property</th><th>runs</th><th>requests</th><th>time</th></tr></thead><tbody>${rows.join('')}</tbody></table>
${failures.length === 0 ? '' : `<h2>Failures</h2>\n${failures.map(failureSection).join('\n')}`}
${coverageSection(report)}
<script>${SCRIPT}</script>
</body></html>
`;
}
