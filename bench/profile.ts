// `tsx profile.ts <row> [<row>...]`: per-request CPU profiles of rows of the HTTP bench, diffed
// function by function. Each row's server runs under `node --cpu-prof` on core 0, takes
// PROFILE_REQUESTS GETs (or cycle requests: PROFILE_SCENARIO=cycle, or the row named as
// `row:cycle`) from autocannon on core 1 (PROFILE_CONNECTIONS connections, 50 by default) after a
// warm-up, and is stopped with SIGTERM so that V8
// writes the profile. The self time of every function (by name and file) is divided by the number
// of requests: microseconds of the server's core per request. With two rows, the second column is
// the first's difference from the second. A reference server row named `row@base` runs the build
// of the checkout PROFILE_BASELINE names (main's, say, built there) instead of this one's, so that
// a change and its base are measured in one run: `PROFILE_BASELINE=../main tsx profile.ts wk-node
// wk-node@base`.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedToJson } from '@workforce-kit/seed-file/testing';
import autocannon from 'autocannon';
import { benchSeed, benchToken, employeeGuid, RESTAURANT_GUID } from './fixtures.js';
import { RowStarter, rows } from './http-rows.js';
import { cpuMicroseconds, pinLoadGenerator, stopAll } from './processes.js';

const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 100_000);
/** The load generator's connections: 50 as the bench's load, 1 for a request with no batching. */
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS ?? 50);
/** Without the profiler: only the CPU time the server's process spent per request. */
const CPU_ONLY = process.env.PROFILE_CPU_ONLY === '1';
const SCENARIO = process.env.PROFILE_SCENARIO ?? 'GET';
const TOP = Number(process.env.PROFILE_TOP ?? 60);
const wanted = process.argv.slice(2);
const all = rows(['pglite', 'postgres']);
const BASELINE = process.env.PROFILE_BASELINE;
/**
 * `row`, `row:scenario` (`wk-node:GET wk-node:cycle` diffs one row's two scenarios), and either
 * with `@base` (the PROFILE_BASELINE checkout's build).
 */
const picked = wanted.map((wanted) => {
  const [named = '', base] = wanted.split('@');
  const [id, scenario = SCENARIO] = named.split(':');
  const row = all.find((candidate) => candidate.id === id);
  if (row === undefined) throw new Error(`unknown row ${id}`);
  if (base !== undefined && (base !== 'base' || BASELINE === undefined)) {
    throw new Error(`${wanted}: @base runs the build of the checkout PROFILE_BASELINE names`);
  }
  const cli =
    base === undefined
      ? undefined
      : join(resolve(BASELINE ?? '.'), 'packages', 'server', 'dist', 'cli.js');
  return { row, scenario, name: wanted, cli };
});

pinLoadGenerator();
const token = await benchToken();
const headers = {
  authorization: `Bearer ${token}`,
  'platform-restaurant-external-id': RESTAURANT_GUID,
};

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function selfTimes(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const out = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const file = frame.url
      .replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '')
      .replace(/^file:\/\/.*\/packages\//, '');
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    out.set(key, (out.get(key) ?? 0) + us);
  }
  return out;
}

const work = await mkdtemp(join(tmpdir(), 'workforce-kit-profile-'));
const seedFile = join(work, 'seed.json');
await writeFile(seedFile, JSON.stringify(seedToJson(benchSeed())));
const starter = new RowStarter(work, seedFile);
const results: { id: string; perRequest: Map<string, number>; total: number }[] = [];
try {
  for (const [index, { row, scenario, name, cli }] of picked.entries()) {
    const dir = join(work, `${index}-${row.id}-prof`);
    const server = await starter.start(
      row,
      CPU_ONLY ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      ...(cli === undefined ? [] : [cli]),
    );
    let employee = 0;
    const load = (amount: number) =>
      autocannon({
        url: server.url,
        connections: CONNECTIONS,
        amount,
        ...(scenario === 'GET'
          ? {
              requests: [
                { method: 'GET', path: `/restaurants/v1/restaurants/${RESTAURANT_GUID}`, headers },
              ],
            }
          : {
              requests: [],
              setupClient: (client: autocannon.Client) => {
                const guid = employeeGuid(employee++ % 200);
                client.setRequests([
                  { method: 'DELETE', path: `/labor/v1/employees/${guid}`, headers },
                  {
                    method: 'PUT',
                    path: `/labor/v1/employees/${guid}/unarchive`,
                    headers: { ...headers, 'content-type': 'application/json' },
                  },
                ]);
              },
            }),
      });
    await load(REQUESTS / 4);
    const before = await cpuMicroseconds(server.pid);
    const result = await load(REQUESTS);
    const cpu = ((await cpuMicroseconds(server.pid)) - before) / REQUESTS;
    await server.stop();
    console.error(`${name}: ${cpu.toFixed(1)} µs of the server's CPU per request (user + system)`);
    if (CPU_ONLY) continue;
    const [file] = await readdir(dir);
    const profile = JSON.parse(await readFile(join(dir, file ?? ''), 'utf8')) as Profile;
    const self = selfTimes(profile);
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const requests = REQUESTS * 1.25;
    const perRequest = new Map([...self].map(([k, v]) => [k, v / requests]));
    console.error(
      `${name}: ${result.requests.average.toFixed(0)} req/s, ${(total / requests).toFixed(1)} µs of profiled time per request (idle included)`,
    );
    results.push({ id: name, perRequest, total: total / requests });
  }
} finally {
  await stopAll();
  await starter.close();
  await rm(work, { recursive: true, force: true });
}

const [first, second] = results;
if (first !== undefined) {
  const keys = [...new Set([...first.perRequest.keys(), ...(second?.perRequest.keys() ?? [])])];
  const diff = (k: string) => (first.perRequest.get(k) ?? 0) - (second?.perRequest.get(k) ?? 0);
  keys.sort((a, b) => Math.abs(diff(b)) - Math.abs(diff(a)));
  console.log(`µs per request: ${first.id}${second ? ` minus ${second.id}` : ''}`);
  for (const k of keys.slice(0, TOP)) {
    console.log(
      `${diff(k).toFixed(2).padStart(8)}  ${(first.perRequest.get(k) ?? 0).toFixed(2).padStart(7)}  ${k}`,
    );
  }
}
