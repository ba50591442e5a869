import type { SqlClient } from './sql-client.js';

/** A notification listener's handle: `close()` stops listening. */
export interface NotificationListener {
  /** Stops listening and releases the listening connection. */
  close(): Promise<void>;
  /**
   * Whether this listener holds its {@link ListenOptions.lead} lock now: always, without `lead`
   * or on PGlite (one session, one process).
   */
  readonly leading: boolean;
}

/** What the listener reports besides notifications. */
export interface NotificationEvents {
  /**
   * A notification arrived on the channel, with its payload; or `null`: the listener (re)connected,
   * and something may have been missed.
   */
  readonly onNotify: (payload: string | null) => void;
  /** The listening connection failed; the listener reconnects by itself. */
  readonly onError: (error: unknown) => void;
}

/** Options of {@link listenForNotifications}. */
export interface ListenOptions {
  /**
   * Elects one listener among those that share `key`, in any process: each tries to take the
   * advisory lock `key` on its listening connection as it connects and then every `retryMs`
   * until it holds it; the holder is `leading` until its connection ends or it closes. (A
   * `pg.Pool`'s listener; PGlite's always leads.)
   */
  readonly lead?: { readonly key: bigint; readonly retryMs: number };
}

/** PGlite's own in-process LISTEN (`db.listen`). */
interface PGliteListen {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/** The part of a `pg.PoolClient` a held LISTEN connection uses. */
interface PooledConnection {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  on(
    event: 'notification',
    listener: (message: { channel: string; payload?: string }) => void,
  ): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
  removeAllListeners(event?: string): unknown;
  release(destroy?: boolean | Error): void;
}

/** The part of a `pg.Pool` that hands out a connection to hold. */
interface ConnectionPool {
  connect(): Promise<PooledConnection>;
  readonly idleCount: number;
}

function isPGlite(client: SqlClient): client is SqlClient & PGliteListen {
  return typeof (client as Partial<PGliteListen>).listen === 'function';
}

function isPool(client: SqlClient): client is SqlClient & ConnectionPool {
  const pool = client as Partial<ConnectionPool>;
  return typeof pool.connect === 'function' && typeof pool.idleCount === 'number';
}

/** Whether {@link listenForNotifications} can listen on this client (a `pg.Pool` or PGlite). */
export function canListen(client: SqlClient): boolean {
  return isPGlite(client) || isPool(client);
}

const RECONNECT_DELAY_MS = 1000;

/**
 * Listens on a channel through the client: PGlite's in-process `listen`, or, for a `pg.Pool`, a
 * connection taken from the pool and held for `LISTEN`, taken again when it fails (the server
 * restarted). Each (re)connection is reported as a notification too, since notifications sent
 * while no connection listened are lost. A client that is neither (only `query`) cannot listen:
 * the caller polls. With `options.lead`, one listener of all those sharing its key is elected (see
 * {@link ListenOptions}).
 *
 * @returns the listener, or `undefined` when the client cannot listen
 * @example
 * ```ts
 * const listener = await listenForNotifications(pool, 'workforce_kit_outbox', {
 *   onNotify: (payload) => relay.wake(),
 *   onError: (error) => logger.warn({ err: error }, 'LISTEN connection lost'),
 * });
 * await listener?.close();
 * ```
 */
export async function listenForNotifications(
  client: SqlClient,
  channel: string,
  events: NotificationEvents,
  options: ListenOptions = {},
): Promise<NotificationListener | undefined> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  if (isPGlite(client)) {
    const unlisten = await client.listen(channel, (payload) => events.onNotify(payload));
    return { close: () => unlisten(), leading: true };
  }
  if (!isPool(client)) return undefined;
  const pool = client;
  const { lead } = options;

  let closed = false;
  let held: PooledConnection | undefined;
  let retry: NodeJS.Timeout | undefined;
  let leading = false;
  let contender: NodeJS.Timeout | undefined;

  /** Tries to take the lead lock on the held connection; again every `retryMs` until it holds it. */
  async function contend(connection: PooledConnection): Promise<void> {
    contender = undefined;
    if (lead === undefined || closed || held !== connection || leading) return;
    try {
      const { rows } = await connection.query('SELECT pg_try_advisory_lock($1) AS held', [
        String(lead.key),
      ]);
      if (held === connection) leading = (rows[0] as { held: boolean } | undefined)?.held === true;
    } catch (error) {
      drop(connection, error);
      return;
    }
    if (!leading && !closed && held === connection) {
      contender = setTimeout(() => void contend(connection), lead.retryMs);
    }
  }

  const drop = (connection: PooledConnection, error: unknown) => {
    if (held !== connection) return;
    held = undefined;
    // The session's lock goes with the connection, which is destroyed rather than pooled.
    leading = false;
    if (contender !== undefined) clearTimeout(contender);
    connection.removeAllListeners('notification');
    connection.release(error instanceof Error ? error : true);
    if (!closed) {
      events.onError(error);
      retry = setTimeout(connect, RECONNECT_DELAY_MS);
    }
  };

  async function connect(): Promise<void> {
    retry = undefined;
    if (closed) return;
    let connection: PooledConnection;
    try {
      connection = await pool.connect();
    } catch (error) {
      if (!closed) {
        events.onError(error);
        retry = setTimeout(connect, RECONNECT_DELAY_MS);
      }
      return;
    }
    if (closed) {
      connection.release();
      return;
    }
    held = connection;
    connection.on('error', (error) => drop(connection, error ?? new Error('connection error')));
    connection.on('end', () => drop(connection, new Error('LISTEN connection ended')));
    connection.on('notification', (message) => {
      if (message.channel === channel) events.onNotify(message.payload ?? '');
    });
    await contend(connection);
    if (held !== connection) return;
    try {
      await connection.query(`LISTEN ${channel}`);
    } catch (error) {
      drop(connection, error);
      return;
    }
    events.onNotify(null);
  }

  await connect();
  return {
    get leading() {
      return lead === undefined || leading;
    },
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      if (contender !== undefined) clearTimeout(contender);
      const connection = held;
      held = undefined;
      leading = false;
      if (connection === undefined) return;
      connection.removeAllListeners('notification');
      if (lead !== undefined) {
        // Closed rather than pooled: the session's lead lock (held, or being taken) ends with it.
        connection.release(true);
        return;
      }
      try {
        await connection.query(`UNLISTEN ${channel}`);
        connection.release();
      } catch (error) {
        connection.release(error instanceof Error ? error : true);
      }
    },
  };
}
