// The replay of a failing run: as shell commands (the calls that bring a freshly seeded live target
// to the state the run started from, its records only, then the run's requests as curl commands,
// each with the answer the target gave), and by the kit itself, which first brings the target back
// to the state the run started from.
import { type Engine, send } from './engine.js';
import type { Exchange, HttpClient, WireRequest } from './http-client.js';
import { fullGrant } from './model-calls.js';
import { laneName } from './race-report.js';
import { type Call, callToWire } from './requests.js';
import { reseed } from './seed-start.js';
import { observe } from './state-oracle.js';
import type { Role } from './state-table-operations.js';
import { type Knowledge, seedKnowledge, type WorldRecord } from './world.js';

/** A word for the shell: single-quoted, or $'…' when it holds bytes a shell should not see. */
function shellWord(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `'${text.replaceAll("'", `'\\''`)}'`;
  const escaped = [...Buffer.from(text, 'latin1')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      if (char === "'" || char === '\\') return `\\${char}`;
      return byte >= 0x20 && byte <= 0x7e ? char : `\\x${byte.toString(16).padStart(2, '0')}`;
    })
    .join('');
  return `$'${escaped}'`;
}

/** A body as the bytes it is sent as (UTF-8), quoted for the shell. */
function bodyWord(text: string): string {
  return shellWord(Buffer.from(text, 'utf8').toString('latin1'));
}

/** The curl command that sends `req` as the kit sent it. */
function toCurl(client: HttpClient, req: WireRequest): string {
  const parts = ['curl -sS -i --path-as-is', `-X ${req.method}`, shellWord(client.urlOf(req.path))];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.toLowerCase() === 'content-length') continue;
    // Header values travel as latin1 in Node: the same bytes.
    parts.push(`-H ${shellWord(`${name}: ${value}`)}`);
  }
  if (req.body !== undefined && req.body !== '') parts.push(`--data-binary ${bodyWord(req.body)}`);
  return parts.join(' ');
}

/** What a failing run leaves for its replay. */
export interface FailedRun {
  readonly transcript: readonly Exchange[];
  /** The knowledge of the target's state when the run started. */
  readonly runStart: Knowledge;
}

/** The records a failing run named: by GUID or external id, in its requests' paths. */
function recordsNamed(engine: Engine, failure: FailedRun): WorldRecord[] {
  const named = failure.transcript
    .map((exchange) => {
      try {
        return decodeURIComponent(exchange.request.path).toLowerCase();
      } catch {
        return exchange.request.path.toLowerCase();
      }
    })
    .join('\n');
  return [...engine.world.employees, ...engine.world.shifts].filter(
    (record) =>
      named.includes(record.guid) ||
      (record.externalId !== undefined && named.includes(record.externalId.toLowerCase())),
  );
}

const deletedIn = (knowledge: Knowledge, record: WorldRecord) =>
  knowledge.get(record.guid)?.deleted ?? record.seedDeleted;

/**
 * The calls that take the records a failing run named from their state in `from` to the state the
 * run started from, as far as calls can (a deleted shift is never undeleted).
 */
function callsToRunStart(engine: Engine, failure: FailedRun, from: Knowledge): Call[] {
  const calls: Call[] = [];
  for (const record of recordsNamed(engine, failure)) {
    const wanted = deletedIn(failure.runStart, record);
    if (deletedIn(from, record) === wanted || (record.kind === 'shift' && !wanted)) continue;
    const role: Role = record.kind === 'shift' ? 'deleteShift' : wanted ? 'archive' : 'unarchive';
    calls.push({ role, context: record.restaurant, grant: fullGrant(engine), id: record.guid });
  }
  return calls;
}

/**
 * Brings the target back to the state a failing run started from, for the records the run named,
 * so that the run can be replayed: an in-process target is reset first; a live one is taken there
 * by archives, unarchives and deletes, as far as it can be (a deleted shift stays deleted). The
 * answers move the knowledge and are held to nothing. Returns whether the records are there.
 */
export async function restoreRunStart(engine: Engine, failure: FailedRun): Promise<boolean> {
  await reseed(engine);
  for (const call of callsToRunStart(engine, failure, engine.knowledge)) {
    const answer = await send(engine, await callToWire(engine, call), engine.operations[call.role]);
    observe(engine, engine.knowledge, call, answer.response);
  }
  return recordsNamed(engine, failure).every(
    (record) => deletedIn(engine.knowledge, record) === deletedIn(failure.runStart, record),
  );
}

const outcomeOf = (exchange: Exchange) => {
  const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(exchange.response.text)?.[1];
  return `# -> ${exchange.response.status}${code === undefined ? '' : ` ${code}`}`;
};

/** The shell commands that replay `failure` (a live target gets the setup calls first). */
export async function replayOf(engine: Engine, failure: FailedRun): Promise<string[]> {
  const replay: string[] = [];
  const calls =
    engine.fresh === undefined ? callsToRunStart(engine, failure, seedKnowledge(engine.world)) : [];
  const setup: string[] = [];
  for (const call of calls) setup.push(toCurl(engine.client, await callToWire(engine, call)));
  if (setup.length > 0) {
    replay.push('# Bring a freshly seeded target to the state the failing run started from:');
    replay.push(...setup);
    replay.push('# The failing run:');
  }
  const line = (exchange: Exchange) =>
    `${toCurl(engine.client, exchange.request)}  ${outcomeOf(exchange)}`;
  const first = failure.transcript.findIndex((e) => e.branch !== undefined);
  if (first === -1) {
    replay.push(...failure.transcript.map(line));
    return replay;
  }
  // A concurrent case: its prefix, then each branch's requests back to back in a background
  // group of their own (each on its own connection, as the kit sent them), then its suffix.
  const branches = new Map<number, Exchange[]>();
  for (const e of failure.transcript) {
    if (e.branch !== undefined) branches.set(e.branch, [...(branches.get(e.branch) ?? []), e]);
  }
  const last = failure.transcript.findLastIndex((e) => e.branch !== undefined);
  if (first > 0)
    replay.push('# The prefix, in order:', ...failure.transcript.slice(0, first).map(line));
  replay.push('# The branches, sent at once, each on its own connection:');
  for (const [branch, exchanges] of [...branches].sort(([a], [b]) => a - b)) {
    replay.push('{', ...exchanges.map((e) => `  ${line(e)}`), `} &  # ${laneName(branch)}`);
  }
  replay.push('wait', '# The suffix, in order:', ...failure.transcript.slice(last + 1).map(line));
  return replay;
}
