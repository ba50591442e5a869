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
import { loadConfig, type ServerConfig } from './config.js';
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
  const command = commandOf(args);
  if (typeof command === 'string') {
    print(command);
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
  const opened = await openDatabase(store);
  if (typeof opened === 'string') {
    print(opened);
    return 1;
  }
  try {
    await migrate(opened.client);
    await run(opened.client, command, print);
    return 0;
  } catch (error) {
    print(`${describeStore(store)}: ${(error as Error).message}`);
    return 1;
  } finally {
    await opened.release().catch(() => {});
  }
}

/** A command line of `webhooks`, checked. */
interface WebhooksCommand {
  readonly name: 'status' | 'redrive' | 'purge' | 'retire';
  readonly destination: string | undefined;
  /** Event ids: what a redrive or a purge acts on, with the destination. */
  readonly events: readonly string[];
}

/** The command of the arguments, or what to print for a bad command line. */
function commandOf(args: readonly string[]): WebhooksCommand | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return `${(error as Error).message}\n${USAGE}`;
  }
  const [name] = parsed.positionals;
  const { destination, all, event: events = [] } = parsed.values;
  if (
    parsed.positionals.length !== 1 ||
    (name !== 'status' && name !== 'redrive' && name !== 'purge' && name !== 'retire') ||
    (name === 'retire' && destination === undefined) ||
    // A purge deletes for good: it names what, or says --all, and --all with nothing else.
    (name === 'purge' && (all === true) === (destination !== undefined || events.length > 0)) ||
    (name !== 'purge' && all !== undefined)
  ) {
    return USAGE;
  }
  const notIds = events.filter((id) => !UUID.test(id));
  if (notIds.length > 0) {
    return `--event takes event ids (the webhook-id of a delivery); not one: ${notIds.join(', ')}`;
  }
  return { name, destination, events };
}

/** The configured database, and how to let it go; or why it cannot be used. */
async function openDatabase(
  store: Exclude<ServerConfig['store'], { kind: 'memory' }>,
): Promise<{ readonly client: SqlClient; release(): Promise<void> } | string> {
  try {
    if (store.kind === 'pglite') {
      const db = await openPGlite(store.dataDir);
      return { client: db, release: () => db.close() };
    }
    const pool = new pg.Pool({ connectionString: store.databaseUrl, max: 1 });
    pool.on('error', () => {});
    return { client: pool, release: () => pool.end() };
  } catch (error) {
    return error instanceof DirectoryLockedError
      ? `${describeStore(store)} is in use (${error.message}): stop the server first`
      : `${describeStore(store)} cannot be used: ${(error as Error).message}`;
  }
}

/** Runs the command on the database, printing its answer. */
async function run(
  client: SqlClient,
  { name, destination, events }: WebhooksCommand,
  print: (line: string) => void,
): Promise<void> {
  const deliveries = (n: number) => (n === 1 ? 'delivery' : 'deliveries');
  const filter = {
    ...(destination === undefined ? {} : { destination }),
    ...(events.length === 0 ? {} : { eventIds: events }),
  };
  switch (name) {
    case 'status': {
      const backlog = await outboxBacklog(client);
      if (backlog.length === 0) print('no webhook destination is registered');
      for (const { destination, pending, dead, oldestPendingAgeMs } of backlog) {
        print(
          `${destination}  pending ${pending}  dead ${dead}  oldest pending ${formatAge(oldestPendingAgeMs)}`,
        );
      }
      return;
    }
    case 'retire': {
      const deleted = await retireOutboxDestination(client, destination ?? '');
      print(`retired ${destination}: ${deleted} ${deliveries(deleted)} deleted`);
      return;
    }
    case 'purge': {
      const purged = await purgeDeadOutboxDeliveries(client, filter);
      print(`purged ${purged} dead ${deliveries(purged)}`);
      return;
    }
    case 'redrive': {
      const redriven = await redriveOutboxDeliveries(client, filter);
      print(`re-drove ${redriven} dead ${deliveries(redriven)}`);
      return;
    }
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
