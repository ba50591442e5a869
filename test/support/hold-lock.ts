// A process that locks a directory with lockDirectory, for the lock's tests: `hold-lock.ts DIR
// [busy MS | race AT]`. It prints one JSON line (`{"held":true,"pid":…}` or `{"held":false,
// "error":…}`), then keeps the lock until SIGTERM (released) or SIGKILL (left stale). `busy MS`
// then blocks its thread for MS milliseconds, as PGlite's engine does; `race AT` waits until the
// epoch millisecond AT before trying, so that several processes try at once.
import { lockDirectory } from '@workforce-kit/postgres';

const [dir = '', mode, value] = process.argv.slice(2);
if (mode === 'race') while (Date.now() < Number(value)) {}
try {
  const lock = lockDirectory(dir);
  process.stdout.write(`${JSON.stringify({ held: true, pid: process.pid })}\n`);
  process.on('SIGTERM', () => {
    lock.release();
    process.exit(0);
  });
  if (mode === 'busy') {
    const until = Date.now() + Number(value);
    while (Date.now() < until) {}
  }
  setInterval(() => {}, 60_000);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ held: false, error: (error as Error).message })}\n`);
  process.exit(3);
}
