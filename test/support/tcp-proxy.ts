// A TCP proxy in front of a server (PostgreSQL here), to break the network between it and its
// clients the way networks break: a black hole (connections stay open, no byte gets through either
// way, new connections are accepted and hang), then every connection reset (RST), after which new
// connections go through again.
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A running proxy: see {@link startTcpProxy}. */
export interface TcpProxy {
  /** `url` with its port replaced by the proxy's: the same server, through the proxy. */
  through(url: string): string;
  /** From now on no byte passes, either way, on any connection, open or new. */
  blackHole(): void;
  /** Resets every connection (both sides get an RST) and lets bytes through again. */
  resetAll(): void;
  /** Connections through it so far. */
  readonly connections: number;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
}

/** Starts a proxy on a loopback port that forwards each connection to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let holed = false;
  let connections = 0;
  const hold = ({ client, upstream }: Pair) => {
    // Unread bytes stay in the kernel's buffers: none is delivered, none is lost before the reset
    // (unpiped, as a drain would otherwise resume the flow).
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const server: Server = createServer((client) => {
    connections++;
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    if (holed) hold(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const resetAll = () => {
    holed = false;
    for (const pair of pairs) {
      pair.client.resetAndDestroy();
      pair.upstream.resetAndDestroy();
    }
    pairs.clear();
  };
  return {
    through: (url) => {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(address.port);
      return proxied.href;
    },
    blackHole: () => {
      holed = true;
      for (const pair of pairs) hold(pair);
    },
    resetAll,
    get connections() {
      return connections;
    },
    close: async () => {
      resetAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
