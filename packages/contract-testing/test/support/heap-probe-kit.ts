// The kit, run as a library in a process whose heap can be collected on demand (node
// --expose-gc), for the test of its memory. Each line on stdin, `<base URL> <runs>`, runs every
// property against that target (freshly seeded from the demo seed, with the token settings of
// demo-seed.ts) and answers one JSON line on stdout: the requests sent, the properties failed, and
// what the heap held after a full collection as the run's last property ended, while the run still
// held everything it keeps. What it held is the heap's data: V8's compiled code and bytecode, which
// grow as a longer run gets more functions optimised and are bounded by the program, are left out.
import { createInterface } from 'node:readline';
import { getHeapCodeStatistics, getHeapStatistics } from 'node:v8';
import { checkApiContract } from '../../src/index.js';
import { AUTH, DEMO_SEED_FILE } from './demo-seed.js';

const exposed = (globalThis as { gc?: () => void }).gc;
if (exposed === undefined) throw new Error('start this with node --expose-gc');
const gc = exposed;

/** The bytes of data the heap holds after a full collection. */
function heldAfterGc(): number {
  gc();
  gc();
  const code = getHeapCodeStatistics();
  return (
    getHeapStatistics().used_heap_size -
    code.code_and_metadata_size -
    code.bytecode_and_metadata_size
  );
}

for await (const line of createInterface({ input: process.stdin })) {
  const [baseUrl = '', runs = ''] = line.trim().split(' ');
  let held = 0;
  const report = await checkApiContract({
    target: baseUrl,
    seed: DEMO_SEED_FILE,
    auth: AUTH,
    runs: Number(runs),
    rngSeed: 42,
    onResult: () => {
      held = heldAfterGc();
    },
  });
  process.stdout.write(
    `${JSON.stringify({ runs: report.runs, requests: report.requests, failed: report.failed, held })}\n`,
  );
}
