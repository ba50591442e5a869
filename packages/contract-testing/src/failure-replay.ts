// The replay of a failing run as shell commands: the calls that bring a freshly seeded live target
// to the state the run started from (its records only), then the run's requests as curl commands,
// each with the answer the target gave.
import type { Engine } from './engine.js';
import type { Exchange, HttpClient, WireRequest } from './http-client.js';
import { fullGrant } from './model-calls.js';
import { callToWire } from './requests.js';
import type { Role } from './state-table-operations.js';
import type { Knowledge } from './world.js';

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
