// A process that logs through the server's LogDestination on its stdout, for the destination's
// tests: `log-writer.ts LINES THEN [MIN_LENGTH FLUSH_MS MAX_PENDING]`. It logs LINES lines at
// level info, numbered (`n`), each with a padding and a text of multi-byte characters, in one
// synchronous loop, then says `logged` on stderr, then THEN:
// - `flush`: logger.flush, then exits 0 once every line is written;
// - `exit`: process.exit(3) at once;
// - `throw`: throws (an uncaught exception: exit code 1);
// - `sigterm`: exits 0 on SIGTERM, as the reference server's command does; it says `ready` on
//   stderr once the handler is installed;
// - `idle`: nothing: the process ends when nothing is left to do.
import { pino } from 'pino';
import { LogDestination } from '../../src/log-destination.js';

const [lines = '0', then = 'flush', minLength, flushIntervalMs, maxPendingBytes] =
  process.argv.slice(2);
const logger = pino(
  { level: 'info' },
  new LogDestination({
    ...(minLength === undefined ? {} : { minLength: Number(minLength) }),
    ...(flushIntervalMs === undefined ? {} : { flushIntervalMs: Number(flushIntervalMs) }),
    ...(maxPendingBytes === undefined ? {} : { maxPendingBytes: Number(maxPendingBytes) }),
    onDropped: (droppedLines) => logger.warn({ droppedLines }, 'log lines dropped'),
  }),
);

const pad = 'x'.repeat(150);
for (let n = 0; n < Number(lines); n++) logger.info({ n, pad, text: 'café 🌍 ünïcödé' }, 'line');
process.stderr.write('logged\n');

if (then === 'flush') logger.flush(() => process.exit(0));
else if (then === 'exit') process.exit(3);
else if (then === 'throw') throw new Error('thrown after logging');
else if (then === 'sigterm') {
  process.on('SIGTERM', () => process.exit(0));
  setInterval(() => {}, 60_000);
  process.stderr.write('ready\n');
}
