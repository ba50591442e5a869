// The reference server, started in this process with the garbage collector exposed, so that the
// adversarial suite can ask it what the heap holds after a full collection: a line on stdin
// answers `heap <bytes>` on stdout. Configured from the environment, as the server's command is.
import { loadConfig, startServer } from '@workforce-kit/server';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('start this with node --expose-gc');
const config = loadConfig(process.env);
if (config.isErr()) throw new Error(config.error.messages.join('\n'));
const server = await startServer(config.value);
process.stdout.write(`workforce-kit is listening on ${server.url}\n`);
process.stdin.on('data', () => {
  gc();
  gc();
  process.stdout.write(`heap ${process.memoryUsage().heapUsed}\n`);
});
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
