// The kit's memory does not grow with the requests it sends: in one process, the kit runs every
// property twice, each time against a reference server of its own (memory store, freshly seeded
// from the demo seed): 20 runs per property, then 100. What the heap holds after a full collection
// as each run's last property ends (the run's engine, knowledge, coverage, results and token cache
// all still held; what a process builds once, the spec's validators and the arbitraries of its
// schemas, built by the first) is the same at the two points within a small bound, though the
// second run sent five times the requests. On the kit as it was (a schema compiled and kept by Ajv
// for each request) the second point held tens of MB more.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_SEED_FILE, SECRET } from './support/demo-seed.js';
import { kitServerEnv, type ServerProcess, startReferenceServer } from './support/processes.js';

const PROBE = fileURLToPath(new URL('./support/heap-probe-kit.ts', import.meta.url));
const RUNS = [20, 100] as const;
/** The most the heap may hold more at the second point than at the first. */
const BOUND_BYTES = 1.5 * 1024 * 1024;

let servers: ServerProcess[] = [];

beforeAll(async () => {
  servers = await Promise.all(
    RUNS.map(() =>
      startReferenceServer({
        STORE: 'memory',
        SEED_FILE: DEMO_SEED_FILE,
        ...kitServerEnv(SECRET),
      }),
    ),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

interface Point {
  readonly runs: number;
  readonly requests: number;
  readonly failed: number;
  readonly held: number;
}

it('holds as much after 100 runs per property as after 20', async () => {
  const probe = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--conditions=@workforce-kit/source', PROBE],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => probe.once('exit', resolve));
  const lines = createInterface({ input: probe.stdout })[Symbol.asyncIterator]();
  try {
    const points: Point[] = [];
    for (const [i, runs] of RUNS.entries()) {
      probe.stdin.write(`${servers[i]?.url} ${runs}\n`);
      const line = await lines.next();
      if (line.done) throw new Error('the probe ended without an answer');
      points.push(JSON.parse(String(line.value)) as Point);
    }
    const [first, second] = points as [Point, Point];
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
    console.info(
      points.map((p) => `${p.runs} runs, ${p.requests} requests: ${mb(p.held)}`).join('; '),
    );
    expect(points.map((p) => p.failed)).toEqual([0, 0]);
    expect(second.requests).toBeGreaterThan(4 * first.requests);
    expect(second.held - first.held).toBeLessThan(BOUND_BYTES);
  } finally {
    probe.stdin.end();
    probe.kill('SIGTERM');
    await exited;
  }
}, 300_000);
