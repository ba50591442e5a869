import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The client a connection from `address` counts against: an IPv4 address as it is (an
 * IPv4-mapped IPv6 address, `::ffff:192.0.2.7`, as the IPv4 address it carries: a dual-stack
 * server sees IPv4 clients so), and an IPv6 address as its /64 network (`2001:db8:7:1::/64`).
 * A /64 is one client in practice: it is the smallest network a home line or a cloud host is
 * given, and a host in it can take any of its 2^64 addresses at will. Anything else (no valid
 * address) is its own client, as written.
 *
 * @example
 * ```ts
 * clientOf('::ffff:192.0.2.7'); // '192.0.2.7'
 * clientOf('2001:db8:7:1:a::1'); // '2001:db8:7:1::/64'
 * ```
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = new ipaddr.IPv6([...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}

/**
 * Where a connection is between its requests:
 * - `headers`: its request headers have not all arrived (a new connection, or one noticed to be
 *   receiving its next request's headers);
 * - `busy`: a request's headers arrived, and its response has not finished;
 * - `idle`: between requests (HTTP keep-alive).
 */
export type ConnectionState = 'headers' | 'busy' | 'idle';

/** Why a connection was closed to make room for a new one. */
export type Reclaimed = 'idle' | 'headers';

/** Which cap refused a new connection. */
export type Refusal = 'max_connections' | 'per_address';

/** The settings of {@link limitConnections}. */
export interface ConnectionLimitOptions {
  /** Connections served at once: at least 1. */
  readonly maxConnections: number;
  /**
   * Connections of one client (see {@link clientOf}) whose request headers have not all arrived
   * that the client keeps while the server is full: at least 1.
   */
  readonly maxIncompleteHeadersPerAddress: number;
  /** Told of each connection refused, with its cap and its client. */
  readonly onRefused?: (refusal: Refusal, client: string) => void;
  /** Told of each connection closed to make room, with its state and its client. */
  readonly onReclaimed?: (state: Reclaimed, client: string) => void;
}

/** What {@link limitConnections} counts, read when wanted (for metrics). */
export interface ConnectionLimit {
  /** Connections refused as they arrived so far, by the cap that refused them. */
  refused(refusal: Refusal): number;
  /** Connections closed so far to make room for a new one, by the state they were in. */
  reclaimed(state: Reclaimed): number;
  /** Connections open now, by state. */
  open(): Record<ConnectionState, number>;
  /** Clients with a connection open now (none are kept once their connections close). */
  readonly clients: number;
}

interface Client {
  readonly key: string;
  /** Its connections open. */
  connections: number;
  /** Its connections in `headers`, oldest first. */
  readonly headers: Set<Connection>;
}

interface Connection {
  readonly socket: Socket;
  readonly client: Client;
  state: ConnectionState;
  /** Requests whose headers arrived and whose response has not finished. */
  requests: number;
  /** `socket.bytesRead` when it went idle: more since, and its next request has begun. */
  idleAt: number;
}

/**
 * Caps the connections `server` serves at once, and keeps one client's slow connections from
 * locking the others out, without counting the connections that are working. A connection is in
 * one of three states ({@link ConnectionState}): `headers` from its accept until its request
 * headers have all arrived (the server's `'request'`), `busy` until its responses have finished,
 * then `idle` until its next request begins (which is `headers` again).
 *
 * Below `maxConnections`, every connection is let in. At `maxConnections`, a new connection:
 * 1. is refused (`per_address`) if its client holds `maxIncompleteHeadersPerAddress`
 *    connections in `headers` already;
 * 2. else takes the place of the connection idle the longest (one found to have begun its next
 *    request counts as `headers` instead, and is passed over);
 * 3. else takes the place of the oldest connection in `headers` of the client that holds the
 *    most of them, if that client holds more than `maxIncompleteHeadersPerAddress`;
 * 4. else is refused (`max_connections`): the server is full of busy connections, or of clients
 *    within their share.
 * A `busy` connection is never closed nor counted against its client. Refused and reclaimed
 * connections are destroyed, before anything reads from a refused one.
 *
 * Framework-independent: it listens to the `node:http` server's `'connection'` and `'request'`
 * events (first among their listeners), which Express, Fastify (its `serverFactory`) and plain
 * `node:http` apps all get. Takes the place of `server.maxConnections`, which must stay unset: a
 * connection Node drops never reaches it. A connection without a peer address (gone as it was
 * accepted) is destroyed.
 *
 * @param server - the HTTP server, before it listens
 * @param options - the caps, and who is told of refusals and reclaims
 * @returns its counts
 * @throws RangeError for a cap below 1
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 *
 * const server = createServer(app);
 * const limit = limitConnections(server, {
 *   maxConnections: 1000,
 *   maxIncompleteHeadersPerAddress: 64,
 * });
 * // later, for a metric: limit.refused('per_address'), limit.reclaimed('idle')
 * ```
 */
export function limitConnections(server: Server, options: ConnectionLimitOptions): ConnectionLimit {
  for (const [name, value] of [
    ['maxConnections', options.maxConnections],
    ['maxIncompleteHeadersPerAddress', options.maxIncompleteHeadersPerAddress],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a whole number ≥ 1: ${value}`);
    }
  }
  const table = new ConnectionTable(options);
  // First among the listeners: a refused connection never gets an HTTP parser.
  server.prependListener('connection', (socket: Socket) => table.accept(socket));
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) =>
    table.requestStarted(req, res),
  );
  return table;
}

/** The open connections by client and state, and what {@link limitConnections} counted. */
class ConnectionTable implements ConnectionLimit {
  readonly #options: ConnectionLimitOptions;
  /** A client's share of connections in `headers` while the server is full. */
  readonly #share: number;
  readonly #connections = new Map<Socket, Connection>();
  readonly #clients = new Map<string, Client>();
  /** Idle connections, idle the longest first. */
  readonly #idle = new Set<Connection>();
  /** Clients holding more than their share of connections in `headers`. */
  readonly #crowded = new Set<Client>();
  #inHeaders = 0;
  readonly #refused = { max_connections: 0, per_address: 0 };
  readonly #reclaimed = { idle: 0, headers: 0 };

  constructor(options: ConnectionLimitOptions) {
    this.#options = options;
    this.#share = options.maxIncompleteHeadersPerAddress;
  }

  refused(refusal: Refusal): number {
    return this.#refused[refusal];
  }

  reclaimed(state: Reclaimed): number {
    return this.#reclaimed[state];
  }

  open(): Record<ConnectionState, number> {
    for (const connection of this.#idle) {
      if (begunAgain(connection)) {
        this.#idle.delete(connection);
        this.#enterHeaders(connection);
      }
    }
    const idle = this.#idle.size;
    return {
      headers: this.#inHeaders,
      busy: this.#connections.size - this.#inHeaders - idle,
      idle,
    };
  }

  get clients(): number {
    return this.#clients.size;
  }

  /** A new connection: let in (making room at the cap), or refused. */
  accept(socket: Socket): void {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = clientOf(address);
    const known = this.#clients.get(key);
    if (this.#connections.size >= this.#options.maxConnections) {
      if (known !== undefined && known.headers.size >= this.#share) {
        this.#refuse(socket, 'per_address', key);
        return;
      }
      if (!this.#makeRoom()) {
        this.#refuse(socket, 'max_connections', key);
        return;
      }
    }
    const client = known ?? { key, connections: 0, headers: new Set() };
    this.#clients.set(key, client);
    client.connections += 1;
    const connection: Connection = { socket, client, state: 'headers', requests: 0, idleAt: 0 };
    this.#connections.set(socket, connection);
    this.#enterHeaders(connection);
    socket.once('close', () => {
      if (this.#connections.get(socket) === connection) this.#forget(connection);
    });
  }

  /** A request's headers arrived: its connection is busy until its responses have finished. */
  requestStarted(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.#connections.get(req.socket);
    if (connection === undefined) return;
    this.#leaveState(connection);
    connection.state = 'busy';
    connection.requests += 1;
    // 'close' comes once the response has finished, or the connection has died before.
    res.once('close', () => this.#responseClosed(connection));
  }

  #responseClosed(connection: Connection): void {
    connection.requests -= 1;
    const { socket } = connection;
    if (
      connection.requests > 0 ||
      socket.destroyed ||
      this.#connections.get(socket) !== connection
    ) {
      return;
    }
    connection.state = 'idle';
    connection.idleAt = socket.bytesRead;
    this.#idle.add(connection);
  }

  #enterHeaders(connection: Connection): void {
    connection.state = 'headers';
    const { client } = connection;
    client.headers.add(connection);
    this.#inHeaders += 1;
    if (client.headers.size > this.#share) this.#crowded.add(client);
  }

  /** Out of `headers` or `idle`, whichever it is in. */
  #leaveState(connection: Connection): void {
    if (connection.state === 'idle') {
      this.#idle.delete(connection);
    } else if (connection.state === 'headers') {
      const { client } = connection;
      client.headers.delete(connection);
      this.#inHeaders -= 1;
      if (client.headers.size <= this.#share) this.#crowded.delete(client);
    }
  }

  #forget(connection: Connection): void {
    this.#leaveState(connection);
    this.#connections.delete(connection.socket);
    const { client } = connection;
    client.connections -= 1;
    if (client.connections === 0) this.#clients.delete(client.key);
  }

  /** Closes one connection to make room: the one idle the longest, else a crowded client's oldest in `headers`. */
  #makeRoom(): boolean {
    return this.#reclaimIdle() || this.#reclaimCrowded();
  }

  #reclaimIdle(): boolean {
    for (const connection of this.#idle) {
      if (connection.socket.destroyed) {
        // Closing already (its keep-alive timeout): its place is free.
        this.#forget(connection);
        return true;
      }
      if (!begunAgain(connection)) {
        this.#reclaim(connection, 'idle');
        return true;
      }
      // Its next request has begun: it is in `headers`, and counts so from now on.
      this.#idle.delete(connection);
      this.#enterHeaders(connection);
    }
    return false;
  }

  #reclaimCrowded(): boolean {
    let most: Client | undefined;
    for (const client of this.#crowded) {
      if (most === undefined || client.headers.size > most.headers.size) most = client;
    }
    const [oldest] = most?.headers ?? [];
    if (oldest === undefined) return false;
    this.#reclaim(oldest, 'headers');
    return true;
  }

  #reclaim(connection: Connection, state: Reclaimed): void {
    this.#forget(connection);
    connection.socket.destroy();
    this.#reclaimed[state] += 1;
    this.#options.onReclaimed?.(state, connection.client.key);
  }

  #refuse(socket: Socket, refusal: Refusal, client: string): void {
    socket.destroy();
    this.#refused[refusal] += 1;
    this.#options.onRefused?.(refusal, client);
  }
}

/**
 * Whether an idle connection has received bytes since: its next request has begun. Node's parser
 * reads the socket without 'data' events (a listener would slow every read), so this is looked at
 * when it matters (the server full, a scrape), not told.
 */
function begunAgain(connection: Connection): boolean {
  return connection.socket.bytesRead > connection.idleAt;
}
