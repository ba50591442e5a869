import type { SqlClient } from './sql-client.js';

/** A notification listener's handle: `close()` stops listening. */
export interface NotificationListener {
  close(): Promise<void>;
}

/** What the listener reports besides notifications. */
export interface NotificationEvents {
  /** A notification arrived on the channel (or the listener (re)connected: something may have been missed). */
  readonly onNotify: () => void;
  /** The listening connection failed; the listener reconnects by itself. */
  readonly onError: (error: unknown) => void;
}

/** PGlite's own in-process LISTEN (`db.listen`). */
interface PGliteListen {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/** The part of a `pg.PoolClient` a held LISTEN connection uses. */
interface PooledConnection {
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string }) => void): unknown;
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
 * the caller polls.
 *
 * @returns the listener, or `undefined` when the client cannot listen
 * @example
 * ```ts
 * const listener = await listenForNotifications(pool, 'workforce_kit_outbox', {
 *   onNotify: () => relay.wake(),
 *   onError: (error) => logger.warn({ err: error }, 'LISTEN connection lost'),
 * });
 * await listener?.close();
 * ```
 */
export async function listenForNotifications(
  client: SqlClient,
  channel: string,
  events: NotificationEvents,
): Promise<NotificationListener | undefined> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  if (isPGlite(client)) {
    const unlisten = await client.listen(channel, () => events.onNotify());
    return { close: () => unlisten() };
  }
  if (!isPool(client)) return undefined;
  const pool = client;

  let closed = false;
  let held: PooledConnection | undefined;
  let retry: NodeJS.Timeout | undefined;

  const drop = (connection: PooledConnection, error: unknown) => {
    if (held !== connection) return;
    held = undefined;
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
      if (message.channel === channel) events.onNotify();
    });
    try {
      await connection.query(`LISTEN ${channel}`);
    } catch (error) {
      drop(connection, error);
      return;
    }
    events.onNotify();
  }

  await connect();
  return {
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      const connection = held;
      held = undefined;
      if (connection === undefined) return;
      connection.removeAllListeners('notification');
      try {
        await connection.query(`UNLISTEN ${channel}`);
        connection.release();
      } catch (error) {
        connection.release(error instanceof Error ? error : true);
      }
    },
  };
}
