import { parseArgs } from 'node:util';
import {
  DirectoryLockedError,
  migrate,
  openPGlite,
  outboxBacklog,
  purgeDeadOutboxDeliveries,
  redriveOutboxDeliveries,
  retireOutboxDestination,
  type SqlClient,
} from '@workforce-kit/postgres';
import pg from 'pg';
import { loadConfig } from './config.js';
import { describeStore } from './server.js';

const USAGE = `usage: workforce-kit webhooks status
       workforce-kit webhooks redrive [--destination <url>] [--event <event id>]...
       workforce-kit webhooks purge (--destination <url> | --event <event id>... | --all)
       workforce-kit webhooks retire --destination <url>

status   each destination's pending and dead deliveries, and the oldest pending event's age
redrive  puts dead deliveries back (all, or a destination's, or these events'): the relays of
         the running servers deliver them again, with the same webhook-id and body
purge    deletes dead deliveries (a destination's, these events', or --all of them): they are
         never delivered, and the later events of their records, which they held back, go out;
         the relays remove their events after WEBHOOK_RETENTION_SECONDS
retire   a URL taken out of WEBHOOK_URLS: changes stop queueing deliveries to it, and its
         deliveries are deleted (a server started with it registers it again)

The store is the server's: STORE, DATABASE_URL, PGLITE_DIR. A PGlite directory is open in one
process at a time: stop the server first.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function formatAge(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/**
 * `workforce-kit webhooks status|redrive|purge|retire`: what an operator needs of the webhook deliveries, on the
 * store the server is configured with (the same environment variables).
 *
 * @param args - the arguments after `webhooks`
 * @param env - the environment (`process.env`)
 * @param print - where each line of the answer goes
 * @returns the exit code: 0, 1 when the store cannot be used, 2 for a bad command line
 * @example
 * ```ts
 * process.exitCode = await webhooksCommand(['redrive', '--destination', url], process.env, console.log);
 * ```
 */
export async function webhooksCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  print: (line: string) => void,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    print(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command] = parsed.positionals;
  const { destination, all } = parsed.values;
  if (
    parsed.positionals.length !== 1 ||
    (command !== 'status' &&
      command !== 'redrive' &&
      command !== 'purge' &&
      command !== 'retire') ||
    (command === 'retire' && destination === undefined) ||
    // A purge deletes for good: it names what, or says --all, and --all with nothing else.
    (command === 'purge' &&
      (all === true) === (destination !== undefined || parsed.values.event !== undefined)) ||
    (command !== 'purge' && all !== undefined)
  ) {
    print(USAGE);
    return 2;
  }
  const config = loadConfig(env);
  if (config.isErr()) {
    print(config.error.messages.join('\n'));
    return 2;
  }
  const { store } = config.value;
  if (store.kind === 'memory') {
    print('STORE=memory keeps no webhook deliveries: set STORE and DATABASE_URL or PGLITE_DIR');
    return 2;
  }

  const events = parsed.values.event ?? [];
  const notIds = events.filter((id) => !UUID.test(id));
  if (notIds.length > 0) {
    print(`--event takes event ids (the webhook-id of a delivery); not one: ${notIds.join(', ')}`);
    return 2;
  }

  let client: SqlClient;
  let release: () => Promise<void>;
  try {
    if (store.kind === 'pglite') {
      const db = await openPGlite(store.dataDir);
      client = db;
      release = () => db.close();
    } else {
      const pool = new pg.Pool({ connectionString: store.databaseUrl, max: 1 });
      pool.on('error', () => {});
      client = pool;
      release = () => pool.end();
    }
  } catch (error) {
    print(
      error instanceof DirectoryLockedError
        ? `${describeStore(store)} is in use (${error.message}): stop the server first`
        : `${describeStore(store)} cannot be used: ${(error as Error).message}`,
    );
    return 1;
  }
  try {
    await migrate(client);
    if (command === 'status') {
      const backlog = await outboxBacklog(client);
      if (backlog.length === 0) print('no webhook destination is registered');
      for (const { destination, pending, dead, oldestPendingAgeMs } of backlog) {
        print(
          `${destination}  pending ${pending}  dead ${dead}  oldest pending ${formatAge(oldestPendingAgeMs)}`,
        );
      }
    } else if (command === 'retire') {
      const deleted = await retireOutboxDestination(client, destination ?? '');
      print(
        `retired ${destination}: ${deleted} ${deleted === 1 ? 'delivery' : 'deliveries'} deleted`,
      );
    } else {
      const filter = {
        ...(destination === undefined ? {} : { destination }),
        ...(events.length === 0 ? {} : { eventIds: events }),
      };
      if (command === 'purge') {
        const purged = await purgeDeadOutboxDeliveries(client, filter);
        print(`purged ${purged} dead ${purged === 1 ? 'delivery' : 'deliveries'}`);
      } else {
        const redriven = await redriveOutboxDeliveries(client, filter);
        print(`re-drove ${redriven} dead ${redriven === 1 ? 'delivery' : 'deliveries'}`);
      }
    }
    return 0;
  } catch (error) {
    print(`${describeStore(store)}: ${(error as Error).message}`);
    return 1;
  } finally {
    await release().catch(() => {});
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      destination: { type: 'string' },
      event: { type: 'string', multiple: true },
      all: { type: 'boolean' },
    },
  });
}
