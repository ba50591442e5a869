import type { Server, Socket } from 'node:net';
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

/** What {@link limitConnectionsPerAddress} counts. */
export interface ConnectionLimit {
  /** Connections closed so far because their client held the limit already. */
  readonly refused: number;
  /** Clients with a connection open now (none are kept once their connections close). */
  readonly clients: number;
}

/**
 * Caps the connections one client (see {@link clientOf}) holds open on `server` at once: a
 * connection that would be its `limit + 1`-th is destroyed as it is accepted, before anything
 * reads from it; a client's count drops as its connections close. So one client's slow or idle
 * connections cannot take the whole of `server.maxConnections`, and other clients are served
 * meanwhile. Connections Node drops over `server.maxConnections` never reach it (nor count).
 * A connection without a peer address (gone as it was accepted) is destroyed.
 *
 * @param limit - connections one client holds at once, at least 1
 * @param onRefused - told of each connection refused, with its client
 * @example
 * ```ts
 * const server = createServer(app);
 * server.maxConnections = 1000;
 * const limit = limitConnectionsPerAddress(server, 64);
 * // later: limit.refused, for a metric
 * ```
 */
export function limitConnectionsPerAddress(
  server: Server,
  limit: number,
  onRefused?: (client: string) => void,
): ConnectionLimit {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`the per-address connection limit must be a whole number ≥ 1: ${limit}`);
  }
  const open = new Map<string, number>();
  let refused = 0;
  // First among the listeners: a refused connection never gets an HTTP parser.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const client = clientOf(address);
    const count = open.get(client) ?? 0;
    if (count >= limit) {
      refused += 1;
      socket.destroy();
      onRefused?.(client);
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
  return {
    get refused() {
      return refused;
    },
    get clients() {
      return open.size;
    },
  };
}
