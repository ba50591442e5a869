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
  const listener = new PoolListener(client, channel, events, options.lead);
  await listener.connect();
  return listener;
}

/**
 * A `pg.Pool`'s listener: a connection taken from the pool and held for `LISTEN`, taken again
 * when it fails; with `lead`, it contends for the lead lock on that connection.
 */
class PoolListener implements NotificationListener {
  readonly #pool: ConnectionPool;
  readonly #channel: string;
  readonly #events: NotificationEvents;
  readonly #lead: ListenOptions['lead'];
  #closed = false;
  #held: PooledConnection | undefined;
  #holdsLead = false;
  #reconnect: NodeJS.Timeout | undefined;
  #contender: NodeJS.Timeout | undefined;

  constructor(
    pool: ConnectionPool,
    channel: string,
    events: NotificationEvents,
    lead: ListenOptions['lead'],
  ) {
    this.#pool = pool;
    this.#channel = channel;
    this.#events = events;
    this.#lead = lead;
  }

  get leading(): boolean {
    return this.#lead === undefined || this.#holdsLead;
  }

  /** Takes a connection, contends for the lead on it, and listens; reported as a notification. */
  async connect(): Promise<void> {
    this.#reconnect = undefined;
    if (this.#closed) return;
    let connection: PooledConnection;
    try {
      connection = await this.#pool.connect();
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (this.#closed) {
      connection.release();
      return;
    }
    this.#hold(connection);
    await this.#contend(connection);
    if (this.#held !== connection) return;
    try {
      await connection.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      this.#drop(connection, error);
      return;
    }
    this.#events.onNotify(null);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnect !== undefined) clearTimeout(this.#reconnect);
    if (this.#contender !== undefined) clearTimeout(this.#contender);
    const connection = this.#held;
    this.#held = undefined;
    this.#holdsLead = false;
    if (connection === undefined) return;
    connection.removeAllListeners('notification');
    if (this.#lead !== undefined) {
      // Closed rather than pooled: the session's lead lock (held, or being taken) ends with it.
      connection.release(true);
      return;
    }
    try {
      await connection.query(`UNLISTEN ${this.#channel}`);
      connection.release();
    } catch (error) {
      connection.release(error instanceof Error ? error : true);
    }
  }

  /** Holds a connection: its notifications are passed on, its failure drops it. */
  #hold(connection: PooledConnection): void {
    this.#held = connection;
    connection.on('error', (error) =>
      this.#drop(connection, error ?? new Error('connection error')),
    );
    connection.on('end', () => this.#drop(connection, new Error('LISTEN connection ended')));
    connection.on('notification', (message) => {
      if (message.channel === this.#channel) this.#events.onNotify(message.payload ?? '');
    });
  }

  /** Tries to take the lead lock on the held connection; again every `retryMs` until it holds it. */
  async #contend(connection: PooledConnection): Promise<void> {
    this.#contender = undefined;
    const lead = this.#lead;
    if (lead === undefined || this.#closed || this.#held !== connection || this.#holdsLead) return;
    try {
      const { rows } = await connection.query('SELECT pg_try_advisory_lock($1) AS held', [
        String(lead.key),
      ]);
      if (this.#held === connection) {
        this.#holdsLead = (rows[0] as { held: boolean } | undefined)?.held === true;
      }
    } catch (error) {
      this.#drop(connection, error);
      return;
    }
    if (!this.#holdsLead && !this.#closed && this.#held === connection) {
      this.#contender = setTimeout(() => void this.#contend(connection), lead.retryMs);
    }
  }

  /** Lets a failed connection go (destroyed, with its session's lock) and connects again. */
  #drop(connection: PooledConnection, error: unknown): void {
    if (this.#held !== connection) return;
    this.#held = undefined;
    this.#holdsLead = false;
    if (this.#contender !== undefined) clearTimeout(this.#contender);
    connection.removeAllListeners('notification');
    connection.release(error instanceof Error ? error : true);
    this.#failed(error);
  }

  /** Reports a failure and connects again after a pause, unless closed. */
  #failed(error: unknown): void {
    if (this.#closed) return;
    this.#events.onError(error);
    this.#reconnect = setTimeout(() => void this.connect(), RECONNECT_DELAY_MS);
  }
}
