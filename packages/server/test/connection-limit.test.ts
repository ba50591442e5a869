import { createServer, get, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientOf, limitConnectionsPerAddress } from '../src/connection-limit.js';

// Linux routes all of 127.0.0.0/8 to the loopback interface: 127.0.0.2 and 127.0.0.3 are two
// more clients of this machine.
const WAIT = { timeout: 10_000, interval: 20 };
/** What a client sees of a connection the server closed as it arrived. */
const REFUSED = /^E(CONNRESET|PIPE)$/;

describe('clientOf', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:7f00:1', '127.0.0.1'],
    ['2001:db8:7:1:a::1', '2001:db8:7:1::/64'],
    ['2001:db8:7:1:ffff:ffff:ffff:ffff', '2001:db8:7:1::/64'],
    ['2001:0DB8:0007:0001::9', '2001:db8:7:1::/64'],
    ['2001:db8:7:2::1', '2001:db8:7:2::/64'],
    ['::1', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['not an address', 'not an address'],
  ])('counts %s as %s', (address, client) => {
    expect(clientOf(address)).toBe(client);
  });
});

describe('limitConnectionsPerAddress', { timeout: 30_000 }, () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  });

  async function serve(host: string, limit: number, onRefused?: (client: string) => void) {
    const server = createServer((_req, res) => res.end('ok'));
    servers.push(server);
    const counts = limitConnectionsPerAddress(server, limit, onRefused);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return { counts, port: (server.address() as AddressInfo).port };
  }

  /** A connection from `from` that sends nothing; whether the server has closed it. */
  async function hold(port: number, from: string) {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(socket);
    socket.on('error', () => {});
    let closed = false;
    socket.once('close', () => {
      closed = true;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return { socket, closed: () => closed };
  }

  /** One request on a new connection from `from`: its status, or the error's code. */
  function request(port: number, from: string): Promise<number | string> {
    return new Promise((resolve) => {
      get({ port, host: '127.0.0.1', localAddress: from, agent: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      }).once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  }

  it('closes the connections of a client over its limit, and serves the others', async () => {
    const refusedClients: string[] = [];
    const { counts, port } = await serve('127.0.0.1', 3, (client) => refusedClients.push(client));
    const held: Awaited<ReturnType<typeof hold>>[] = [];
    for (let i = 0; i < 5; i += 1) held.push(await hold(port, '127.0.0.2'));
    await vi.waitFor(() => expect(held.filter((h) => h.closed())).toHaveLength(2), WAIT);
    // Accepted after the five: once it is answered, the server has dealt with them all.
    expect(await request(port, '127.0.0.1')).toBe(200);
    expect(held.map((h) => h.closed())).toEqual([false, false, false, true, true]);
    expect(await request(port, '127.0.0.2')).toMatch(REFUSED);
    expect(counts.refused).toBe(3);
    expect(refusedClients).toEqual(['127.0.0.2', '127.0.0.2', '127.0.0.2']);
  });

  it('counts a connection closed: the client is served again, and forgotten', async () => {
    const { counts, port } = await serve('127.0.0.1', 2);
    const held = [await hold(port, '127.0.0.2'), await hold(port, '127.0.0.2')];
    expect(await request(port, '127.0.0.2')).toMatch(REFUSED);
    held[0]?.socket.destroy();
    // The server learns of the close when it reads it: a new connection is let in from then on.
    await vi.waitFor(async () => expect(await request(port, '127.0.0.2')).toBe(200), WAIT);
    expect(counts.clients).toBe(1);
    held[1]?.socket.destroy();
    await vi.waitFor(() => expect(counts.clients).toBe(0), WAIT);
  });

  it('counts IPv4 clients of a dual-stack server by their IPv4 address', async () => {
    const refusedClients: string[] = [];
    const { port } = await serve('::', 1, (client) => refusedClients.push(client));
    const first = await hold(port, '127.0.0.3');
    expect(await request(port, '127.0.0.3')).toMatch(REFUSED);
    expect(await request(port, '127.0.0.2')).toBe(200);
    expect(first.closed()).toBe(false);
    expect(refusedClients).toEqual(['127.0.0.3']);
  });

  it('refuses a limit below 1', () => {
    expect(() => limitConnectionsPerAddress(createServer(), 0)).toThrow(RangeError);
  });
});
