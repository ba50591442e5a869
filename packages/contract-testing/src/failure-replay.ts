// The replay of a failing run as shell commands: the calls that bring a freshly seeded live target
// to the state the run started from (its records only), then the run's requests as curl commands,
// each with the answer the target gave.
import type { Engine } from './engine.js';
import { type Exchange, toCurl } from './http-client.js';
import { fullGrant } from './model-calls.js';
import { callToWire } from './requests.js';
import type { Role } from './state-table-operations.js';
import type { Knowledge } from './world.js';

/** What a failing run leaves for its replay. */
export interface FailedRun {
  readonly transcript: readonly Exchange[];
  /** The knowledge of the target's state when the run started. */
  readonly runStart: Knowledge;
}

/** Calls that take a freshly seeded target to the state a run started from (its records only). */
async function setupCalls(engine: Engine, failure: FailedRun): Promise<string[]> {
  const named = failure.transcript
    .map((exchange) => {
      try {
        return decodeURIComponent(exchange.request.path).toLowerCase();
      } catch {
        return exchange.request.path.toLowerCase();
      }
    })
    .join('\n');
  const lines: string[] = [];
  for (const record of [...engine.world.employees, ...engine.world.shifts]) {
    const state = failure.runStart.get(record.guid);
    if (state === undefined || state.deleted === record.seedDeleted) continue;
    const mentioned =
      named.includes(record.guid) ||
      (record.externalId !== undefined && named.includes(record.externalId.toLowerCase()));
    if (!mentioned) continue;
    const role: Role =
      record.kind === 'shift' ? 'deleteShift' : state.deleted ? 'archive' : 'unarchive';
    const req = await callToWire(engine, {
      role,
      context: record.restaurant,
      grant: fullGrant(engine),
      id: record.guid,
    });
    lines.push(toCurl(engine.client, req));
  }
  return lines;
}

const outcomeOf = (exchange: Exchange) => {
  const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(exchange.response.text)?.[1];
  return `# -> ${exchange.response.status}${code === undefined ? '' : ` ${code}`}`;
};

/** The shell commands that replay `failure` (a live target gets the setup calls first). */
export async function replayOf(engine: Engine, failure: FailedRun): Promise<string[]> {
  const replay: string[] = [];
  const setup = engine.fresh === undefined ? await setupCalls(engine, failure) : [];
  if (setup.length > 0) {
    replay.push('# Bring a freshly seeded target to the state the failing run started from:');
    replay.push(...setup);
    replay.push('# The failing run:');
  }
  for (const exchange of failure.transcript) {
    replay.push(`${toCurl(engine.client, exchange.request)}  ${outcomeOf(exchange)}`);
  }
  return replay;
}
