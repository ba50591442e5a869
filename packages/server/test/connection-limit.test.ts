import { createServer, get, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ConnectionLimitOptions,
  clientOf,
  limitConnections,
  type Reclaimed,
  type Refusal,
} from '../src/connection-limit.js';

// Linux routes all of 127.0.0.0/8 to the loopback interface: 127.0.0.2 and 127.0.0.3 are two
// more clients of this machine.
const WAIT = { timeout: 10_000, interval: 20 };
/** What a client sees of a connection the server closed as it arrived. */
const REFUSED = /^E(CONNRESET|PIPE)$/;
const HEAD = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

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

describe('limitConnections', { timeout: 30_000 }, () => {
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

  /**
   * A server answering GET at once and PUT once its body has all arrived, under the limits; its
   * counts, and who was refused and reclaimed.
   */
  async function serve(
    limits: Pick<ConnectionLimitOptions, 'maxConnections' | 'maxIncompleteHeadersPerAddress'>,
    host = '127.0.0.1',
  ) {
    const server = createServer((req, res) => {
      req.resume();
      req.once('end', () => res.end(req.method === 'PUT' ? 'done' : 'ok'));
    });
    servers.push(server);
    const refused: [Refusal, string][] = [];
    const reclaimed: [Reclaimed, string][] = [];
    const limit = limitConnections(server, {
      ...limits,
      onRefused: (refusal, client) => refused.push([refusal, client]),
      onReclaimed: (state, client) => reclaimed.push([state, client]),
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return { limit, refused, reclaimed, port: (server.address() as AddressInfo).port };
  }

  /** A connection from `from` that has sent nothing yet; what it received, and whether it closed. */
  async function open(port: number, from: string) {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(socket);
    socket.on('error', () => {});
    let closed = false;
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.once('close', () => {
      closed = true;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return {
      socket,
      closed: () => closed,
      /** Sends `text` and waits for the `answers`-th answer (`ok` or `done`) in all. */
      async send(text: string, answers = 1) {
        socket.write(text);
        await vi.waitFor(
          () => expect(received.match(/\r\n\r\n(ok|done)/g)?.length ?? 0).toBe(answers),
          WAIT,
        );
      },
    };
  }

  type Held = Awaited<ReturnType<typeof open>>;

  /** `count` connections from `from`, each answered once and left open: idle, in that order. */
  async function idle(port: number, from: string, count: number): Promise<Held[]> {
    const held: Held[] = [];
    for (let i = 0; i < count; i += 1) {
      const connection = await open(port, from);
      await connection.send(HEAD);
      held.push(connection);
    }
    return held;
  }

  /** One GET on a new connection from `from`: its status, or the error's code. */
  function request(port: number, from: string): Promise<number | string> {
    return new Promise((resolve) => {
      get({ port, host: '127.0.0.1', localAddress: from, agent: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      }).once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  }

  it('lets every connection in below the cap, however many of its client send their headers', async () => {
    const { limit, refused, port } = await serve({
      maxConnections: 10,
      maxIncompleteHeadersPerAddress: 2,
    });
    const held: Held[] = [];
    for (let i = 0; i < 6; i += 1) held.push(await open(port, '127.0.0.2'));
    await vi.waitFor(() => expect(limit.open()).toEqual({ headers: 6, busy: 0, idle: 0 }), WAIT);
    expect(await request(port, '127.0.0.2')).toBe(200);
    expect(held.filter((h) => h.closed())).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('at the cap, closes the oldest connection sending its headers of a client over its share, and refuses that client more', async () => {
    const { limit, refused, reclaimed, port } = await serve({
      maxConnections: 5,
      maxIncompleteHeadersPerAddress: 2,
    });
    const held: Held[] = [];
    for (let i = 0; i < 5; i += 1) {
      held.push(await open(port, '127.0.0.2'));
      // One at a time, so that the server's order is the test's.
      await vi.waitFor(() => expect(limit.open().headers).toBe(i + 1), WAIT);
    }
    // Another client is let in: the oldest of 127.0.0.2's makes room.
    expect(await request(port, '127.0.0.3')).toBe(200);
    await vi.waitFor(() => expect(held[0]?.closed()).toBe(true), WAIT);
    expect(held.map((h) => h.closed())).toEqual([true, false, false, false, false]);
    expect(reclaimed).toEqual([['headers', '127.0.0.2']]);
    // The server is full again (four of 127.0.0.2's and another one): 127.0.0.2, over its share,
    // gets no more.
    const other = await open(port, '127.0.0.3');
    await vi.waitFor(() => expect(limit.open().headers).toBe(5), WAIT);
    expect(await request(port, '127.0.0.2')).toMatch(REFUSED);
    expect(refused).toEqual([['per_address', '127.0.0.2']]);
    expect(limit.refused('per_address')).toBe(1);
    expect(limit.reclaimed('headers')).toBe(1);
    // Clients within their share take the place of 127.0.0.2's oldest, one after another, until
    // 127.0.0.2 is down to its share; then the server, full, refuses.
    const others = [other];
    for (const from of ['127.0.0.4', '127.0.0.5']) {
      others.push(await open(port, from));
      await vi.waitFor(() => expect(limit.reclaimed('headers')).toBe(others.length), WAIT);
    }
    await vi.waitFor(
      () => expect(held.map((h) => h.closed())).toEqual([true, true, true, false, false]),
      WAIT,
    );
    expect(await request(port, '127.0.0.6')).toMatch(REFUSED);
    expect(refused.at(-1)).toEqual(['max_connections', '127.0.0.6']);
    expect(others.filter((h) => h.closed())).toEqual([]);
  });

  it('at the cap, closes the connection idle the longest first', async () => {
    const { limit, reclaimed, port } = await serve({
      maxConnections: 3,
      maxIncompleteHeadersPerAddress: 1,
    });
    const held = await idle(port, '127.0.0.2', 3);
    await vi.waitFor(() => expect(limit.open()).toEqual({ headers: 0, busy: 0, idle: 3 }), WAIT);
    // The first two are used again: the third is now the one idle the longest.
    for (const connection of held.slice(0, 2)) await connection.send(HEAD, 2);
    expect(await request(port, '127.0.0.3')).toBe(200);
    await vi.waitFor(() => expect(held[2]?.closed()).toBe(true), WAIT);
    expect(held.map((h) => h.closed())).toEqual([false, false, true]);
    expect(reclaimed).toEqual([['idle', '127.0.0.2']]);
    expect(limit.refused('per_address') + limit.refused('max_connections')).toBe(0);
  });

  it('counts an idle connection whose next request has begun as sending its headers', async () => {
    const { limit, reclaimed, port } = await serve({
      maxConnections: 3,
      maxIncompleteHeadersPerAddress: 1,
    });
    const held = await idle(port, '127.0.0.2', 3);
    // The oldest begins its next request, and sends its headers no further.
    held[0]?.socket.write('GET / HT');
    await vi.waitFor(() => expect(limit.open()).toEqual({ headers: 1, busy: 0, idle: 2 }), WAIT);
    // So an idle one makes room rather than it…
    expect(await request(port, '127.0.0.3')).toBe(200);
    await vi.waitFor(() => expect(held[1]?.closed()).toBe(true), WAIT);
    // …and its client, at its share of connections sending headers, gets no new one at the cap.
    await vi.waitFor(() => expect(limit.open()).toEqual({ headers: 1, busy: 0, idle: 1 }), WAIT);
    const third = await open(port, '127.0.0.4');
    await vi.waitFor(() => expect(limit.open().headers).toBe(2), WAIT);
    expect(await request(port, '127.0.0.2')).toMatch(REFUSED);
    expect(held.map((h) => h.closed())).toEqual([false, true, false]);
    expect(third.closed()).toBe(false);
    expect(reclaimed).toEqual([['idle', '127.0.0.2']]);
    // Its request, once complete, is answered.
    await held[0]?.send('TP/1.1\r\nHost: x\r\n\r\n', 2);
  });

  it('never closes a busy connection, nor counts it against its client', async () => {
    const { limit, refused, reclaimed, port } = await serve({
      maxConnections: 4,
      maxIncompleteHeadersPerAddress: 1,
    });
    // Three requests whose headers have arrived and whose bodies have not: busy.
    const busy: Held[] = [];
    for (let i = 0; i < 3; i += 1) {
      const connection = await open(port, '127.0.0.2');
      connection.socket.write('PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n');
      busy.push(connection);
    }
    await vi.waitFor(() => expect(limit.open()).toEqual({ headers: 0, busy: 3, idle: 0 }), WAIT);
    // Their client is let in again: three busy connections are not three sending headers.
    expect(await request(port, '127.0.0.2')).toBe(200);
    const quiet = await open(port, '127.0.0.2');
    await vi.waitFor(() => expect(limit.open()).toEqual({ headers: 1, busy: 3, idle: 0 }), WAIT);
    // Full of busy connections and a client within its share: a new one is refused, and none of
    // them is closed to make room.
    expect(await request(port, '127.0.0.3')).toMatch(REFUSED);
    expect(refused).toEqual([['max_connections', '127.0.0.3']]);
    expect(reclaimed).toEqual([]);
    expect([...busy, quiet].filter((h) => h.closed())).toEqual([]);
    for (const connection of busy) await connection.send('body');
    // Once answered, they are idle, and make room.
    expect(await request(port, '127.0.0.3')).toBe(200);
    expect(reclaimed).toEqual([['idle', '127.0.0.2']]);
  });

  it('counts a connection closed: its place is free, and its client is forgotten', async () => {
    const { limit, port } = await serve({ maxConnections: 2, maxIncompleteHeadersPerAddress: 1 });
    const held = [await open(port, '127.0.0.2'), await open(port, '127.0.0.2')];
    await vi.waitFor(() => expect(limit.open().headers).toBe(2), WAIT);
    expect(await request(port, '127.0.0.2')).toMatch(REFUSED);
    held[0]?.socket.destroy();
    // The server learns of the close when it reads it: a new connection is let in from then on.
    await vi.waitFor(async () => expect(await request(port, '127.0.0.2')).toBe(200), WAIT);
    expect(limit.clients).toBe(1);
    held[1]?.socket.destroy();
    await vi.waitFor(() => expect(limit.clients).toBe(0), WAIT);
    expect(limit.open()).toEqual({ headers: 0, busy: 0, idle: 0 });
  });

  it('counts IPv4 clients of a dual-stack server by their IPv4 address', async () => {
    const { limit, refused, port } = await serve(
      { maxConnections: 1, maxIncompleteHeadersPerAddress: 1 },
      '::',
    );
    const first = await open(port, '127.0.0.3');
    await vi.waitFor(() => expect(limit.open().headers).toBe(1), WAIT);
    expect(await request(port, '127.0.0.3')).toMatch(REFUSED);
    expect(first.closed()).toBe(false);
    expect(refused).toEqual([['per_address', '127.0.0.3']]);
  });

  it.each([
    [0, 1],
    [1, 0],
    [1.5, 1],
  ])('refuses maxConnections %s and a share of %s', (maxConnections, share) => {
    expect(() =>
      limitConnections(createServer(), { maxConnections, maxIncompleteHeadersPerAddress: share }),
    ).toThrow(RangeError);
  });
});
