// A process that locks a directory with lockDirectory, for the lock's tests: `hold-lock.ts DIR
// [busy FILE | race]`. It prints one JSON line (`{"held":true,"pid":…}` or `{"held":false,
// "error":…}`), then keeps the lock until SIGTERM (released) or SIGKILL (left stale). `busy FILE`
// then blocks its thread until FILE exists, as PGlite's engine blocks it; `race` first prints
// `ready`, then reads an epoch millisecond from stdin and waits for it before trying, so that
// several processes, all started, try at once.
import { existsSync } from 'node:fs';
import { lockDirectory } from '@workforce-kit/postgres';

const [dir = '', mode, value] = process.argv.slice(2);
if (mode === 'race') {
  process.stdout.write('ready\n');
  const at = await new Promise<number>((resolve) =>
    process.stdin.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  process.stdin.destroy();
  while (Date.now() < at) {}
}
try {
  const lock = lockDirectory(dir);
  process.stdout.write(`${JSON.stringify({ held: true, pid: process.pid })}\n`);
  process.on('SIGTERM', () => {
    lock.release();
    process.exit(0);
  });
  if (mode === 'busy') while (!existsSync(value ?? '')) {}
  setInterval(() => {}, 60_000);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ held: false, error: (error as Error).message })}\n`);
  process.exit(3);
}
