// `pnpm --filter @workforce-kit/bench run alloc`: what one request costs in process, with no HTTP:
// the API's pipeline (`api.handle`) built with the reference server's options (its defaults:
// metrics, the log line at LOG_LEVEL=info written to /dev/null through the server's own
// destination, helmet's headers, request ids, rate limits raised so that nothing is refused,
// an HS256 verifier with its issuer and audience), over the memory store, one request at a time.
//
// Per request, for a GET of the restaurant, an archive/unarchive cycle (each request one change)
// and a refused request (401, no token):
// - bytes allocated: the heap's growth over a run of requests during which no garbage collection
//   ran (the young generation made large enough, --max-semi-space-size, and a run with a GC in it
//   measured again), so the figure is exact, not sampled; after 100,000 requests of warm-up (the
//   compilers' steady state), the median of five runs;
// - CPU µs: the process's CPU time (user and system) over a longer run, GCs included.
// `ALLOC_BY_FUNCTION=1` adds, per scenario, the bytes per request by the function that allocated
// them, from V8's sampling heap profiler (collected objects included). The profiler names the
// outermost function of what V8 compiled as one: with `ALLOC_NO_INLINING=1` (V8 inlines nothing)
// each allocation is named by its own function, at the cost of what inlining saves, so the bytes
// are then more than the budget's. Results go to stdout and .bench-results/alloc.json; `pnpm bench`
// runs it first and prints them with its report.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { Session } from 'node:inspector/promises';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier } from '@workforce-kit/http';
import {
  type ApiAnswer,
  type ApiRequest,
  createApi,
  isThenable,
} from '@workforce-kit/http/adapter';
import { loadConfig } from '@workforce-kit/server';
import { referenceApiOptions } from '../packages/server/src/app.js';
import { serverRegistry } from '../packages/server/src/metrics.js';
import { serverLogger } from '../packages/server/src/server.js';
import {
  BENCH_AUDIENCE,
  BENCH_ISSUER,
  BENCH_REFERENCE_SETTINGS,
  BENCH_SECRET,
  benchSeed,
  benchToken,
  employeeGuid,
  RESTAURANT_GUID,
} from './fixtures.js';

/** The young generation this run needs so that a measured run fits in it without a GC (MB). */
const SEMI_SPACE_MB = 256;

// Re-run under the flags the measurement needs: a young generation large enough to hold a run.
if (!process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size'))) {
  const child = spawnSync(
    process.execPath,
    [
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      `--min-semi-space-size=${SEMI_SPACE_MB}`,
      '--expose-gc',
      ...(process.env.ALLOC_NO_INLINING === '1' ? ['--max-inlined-bytecode-size=0'] : []),
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  process.exit(child.status ?? 1);
}

/** Requests in a run whose allocation is measured: small enough to fit in the young generation. */
const ALLOC_REQUESTS = Number(process.env.ALLOC_REQUESTS ?? 2_000);
/** Requests in a run whose CPU time is measured. */
const CPU_REQUESTS = Number(process.env.ALLOC_CPU_REQUESTS ?? 50_000);
const WARMUP_REQUESTS = Number(process.env.ALLOC_WARMUP_REQUESTS ?? 100_000);
/** Runs whose allocation is measured: the median is reported. */
const ALLOC_WINDOWS = 5;
const BY_FUNCTION = process.env.ALLOC_BY_FUNCTION === '1';

const config = loadConfig({
  STORE: 'memory',
  ...BENCH_REFERENCE_SETTINGS,
  LOG_LEVEL: 'info',
})._unsafeUnwrap();
const store = createMemoryStore(benchSeed());
const api = createApi(
  referenceApiOptions(
    { config, logger: serverLogger('info', '/dev/null'), store, sharedLimiter: undefined },
    createJwtVerifier({
      hs256Secret: BENCH_SECRET,
      issuer: BENCH_ISSUER,
      audience: BENCH_AUDIENCE,
    }),
    serverRegistry(),
    false,
  ),
);

const token = await benchToken();
/** A request made once and sent many times: its making is the harness's cost, not the API's. */
function request(method: string, url: string, headers: IncomingHttpHeaders): ApiRequest {
  return { method, url, headers, address: '127.0.0.1', body: Readable.from([]) };
}
const authorized = {
  authorization: `Bearer ${token}`,
  'platform-restaurant-external-id': RESTAURANT_GUID,
  host: '127.0.0.1',
};
const employee = `/labor/v1/employees/${employeeGuid(0)}`;
const get = request('GET', `/restaurants/v1/restaurants/${RESTAURANT_GUID}`, authorized);
const unarchive = request('PUT', `${employee}/unarchive`, {
  ...authorized,
  'content-type': 'application/json',
});
const archive = request('DELETE', employee, authorized);
const refused = request('GET', `/restaurants/v1/restaurants/${RESTAURANT_GUID}`, {
  'platform-restaurant-external-id': RESTAURANT_GUID,
  host: '127.0.0.1',
});

interface Scenario {
  readonly name: string;
  readonly status: number;
  /** The i-th request of the scenario. */
  readonly next: (i: number) => ApiRequest;
}
const scenarios: Scenario[] = [
  { name: 'GET', status: 200, next: () => get },
  // The employee starts active: archive, then unarchive, and so on (every run's count is even).
  { name: 'cycle', status: 200, next: (i) => (i % 2 === 0 ? archive : unarchive) },
  { name: '401', status: 401, next: () => refused },
];

/** What the adapters do with an answer, but write it: close it for the metrics and the log line. */
const response = { statusCode: 0, writableFinished: true };
let wrongStatus = 0;
function finish(answer: ApiAnswer | undefined, status: number): void {
  if (answer === undefined) throw new Error('the API did not take the request');
  if (answer.status !== status) wrongStatus = answer.status;
  response.statusCode = answer.status;
  answer.closed?.(response);
}

/** Requests sent so far: the cycle's next one follows from it. */
let sent = 0;
async function runRequests(scenario: Scenario, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    // An answer at hand is taken as it is: awaiting it would cost the harness a promise.
    const answering = api.handle(scenario.next(sent++));
    finish(isThenable(answering) ? await answering : answering, scenario.status);
  }
}

/** Collections that free memory (scavenges and mark-compacts; not incremental marking's steps). */
let collections = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { kind } = (entry as PerformanceEntry & { detail: { kind: number } }).detail;
    if (
      kind === constants.NODE_PERFORMANCE_GC_MINOR ||
      kind === constants.NODE_PERFORMANCE_GC_MAJOR
    ) {
      collections++;
    }
  }
}).observe({ entryTypes: ['gc'] });
/** Lets the GC observer hear of the collections so far. */
/** (a GC's entry reaches the observer a task or two after it ran) */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Bytes allocated per request: the heap's growth over a run with no collection in it. */
/**
 * Bytes allocated per request: the median of {@link ALLOC_WINDOWS} runs, each the heap's growth
 * over a run with no collection in it (what V8's compilers make of the code varies a little from
 * one run to the next, and with it what escapes to the heap).
 */
async function bytesPerRequest(scenario: Scenario): Promise<number> {
  const windows: number[] = [];
  for (let attempt = 0; attempt < 20 * ALLOC_WINDOWS && windows.length < ALLOC_WINDOWS; attempt++) {
    global.gc?.();
    await settle();
    const before = collections;
    const heapBefore = getHeapStatistics().used_heap_size;
    await runRequests(scenario, ALLOC_REQUESTS);
    const heapAfter = getHeapStatistics().used_heap_size;
    await settle();
    if (collections === before) windows.push((heapAfter - heapBefore) / ALLOC_REQUESTS);
  }
  if (windows.length < ALLOC_WINDOWS) {
    throw new Error(`the runs of ${scenario.name} had garbage collections in them`);
  }
  return windows.sort((a, b) => a - b)[Math.floor(windows.length / 2)] as number;
}

async function cpuPerRequest(scenario: Scenario): Promise<number> {
  const before = process.cpuUsage();
  await runRequests(scenario, CPU_REQUESTS);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / CPU_REQUESTS;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Bytes per request by the function that allocated them (V8's sampling heap profiler). */
async function bytesByFunction(scenario: Scenario): Promise<[string, number][]> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 128,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await runRequests(scenario, CPU_REQUESTS);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
    profile: { head: SamplingNode };
  };
  session.disconnect();
  const bytes = new Map<string, number>();
  const nameOf = (node: SamplingNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '');
    return `${functionName || '(anonymous)'} ${file.replace(/^file:\/\/.*\/packages\//, '')}:${lineNumber + 1}`;
  };
  // A built-in (no file) is named with the function that called it.
  const visit = (node: SamplingNode, caller: string) => {
    const name = nameOf(node);
    const key = node.callFrame.url === '' ? `${name} (in ${caller})` : name;
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child, node.callFrame.url === '' ? caller : name);
  };
  visit(profile.head, '');
  return [...bytes]
    .map(([key, total]): [string, number] => [key, total / CPU_REQUESTS])
    .filter(([, perRequest]) => perRequest >= 16)
    .sort((a, b) => b[1] - a[1]);
}

interface Figures {
  readonly scenario: string;
  readonly bytesPerRequest: number;
  readonly cpuMicrosecondsPerRequest: number;
}
const results: Figures[] = [];
/** `ALLOC_SCENARIOS=cycle`, say: only those (to profile one). */
const picked = process.env.ALLOC_SCENARIOS?.split(',');
for (const scenario of scenarios) {
  if (picked !== undefined && !picked.includes(scenario.name)) continue;
  await runRequests(scenario, WARMUP_REQUESTS);
  const bytes = await bytesPerRequest(scenario);
  const cpu = await cpuPerRequest(scenario);
  results.push({ scenario: scenario.name, bytesPerRequest: bytes, cpuMicrosecondsPerRequest: cpu });
  if (BY_FUNCTION) {
    console.log(`\n${scenario.name}: bytes per request by the function that allocated them`);
    for (const [where, perRequest] of (await bytesByFunction(scenario)).slice(0, 40)) {
      console.log(`${perRequest.toFixed(0).padStart(7)}  ${where}`);
    }
  }
}
if (wrongStatus !== 0) throw new Error(`a request was answered ${wrongStatus}`);

/** The budgets of issue 27: a GET at most 4 KB, a change at most 12 KB. */
const BUDGETS: Readonly<Record<string, number>> = { GET: 4096, cycle: 12_288 };
const NO_INLINING = process.execArgv.includes('--max-inlined-bytecode-size=0');
console.log('\nIn process (api.handle, the reference server’s options, memory store):');
if (NO_INLINING) {
  console.log('(ALLOC_NO_INLINING=1: V8 inlined nothing, so the bytes are not the budget’s)');
}
console.log('| request | bytes allocated | budget | CPU µs |');
console.log('|---|---:|---:|---:|');
for (const { scenario, bytesPerRequest, cpuMicrosecondsPerRequest } of results) {
  const budget = BUDGETS[scenario];
  const verdict =
    budget === undefined ? '–' : `${budget} (${bytesPerRequest <= budget ? 'met' : 'not met'})`;
  console.log(
    `| ${scenario} | ${Math.round(bytesPerRequest)} | ${verdict} | ${cpuMicrosecondsPerRequest.toFixed(1)} |`,
  );
}
// A run without inlining is for finding allocations: its figures are not kept for the report.
if (NO_INLINING) process.exit(0);
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/alloc.json', import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), results, budgets: BUDGETS }, null, 2)}\n`,
);
process.exit(0);
