// Support of the adversarial suite: a seed of two restaurants, tokens of every shape (forged
// ones included), raw HTTP over sockets, and the report of what was tried and what came back.
import { createHmac, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { type Agent, get as httpGet } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SECRET = randomBytes(32).toString('hex');
export const ISSUER = 'workforce-kit-dev';

/** Restaurant A, the attacker's context, and restaurant B, the target. */
export const A = 'a0000000-0000-4000-8000-00000000000a';
export const B = 'b0000000-0000-4000-8000-00000000000b';
export const A_EMPLOYEE = 'a1000000-0000-4000-8000-000000000001';
export const A_ARCHIVED = 'a1000000-0000-4000-8000-000000000002';
export const A_SHIFT = 'a2000000-0000-4000-8000-000000000001';
/** B's records: already archived and deleted, so that archive and delete read them unchanged. */
export const B_EMPLOYEE = 'b1000000-0000-4000-8000-000000000001';
export const B_SHIFT = 'b2000000-0000-4000-8000-000000000001';
/** External ids both restaurants use: each must name its own restaurant's record only. */
export const SHARED_EMPLOYEE_ID = 'PAYROLL:shared-1';
export const SHARED_SHIFT_ID = 'SCHEDULER:shared-1';
/** External ids only B uses. */
export const B_ONLY_EMPLOYEE_ID = 'PAYROLL:b-only';
export const B_ONLY_SHIFT_ID = 'SCHEDULER:b-only';
export const SEEDED = '2026-01-05T09:00:00.000Z';
export const CLIENT_SECRET = `client-secret-${randomBytes(12).toString('hex')}`;

const general = (name: string) => ({ name, archived: false, timeZone: 'America/New_York' });

/** Writes the suite's seed to a temporary file; its path. */
export async function writeSeed(): Promise<string> {
  const dated = { createdDate: SEEDED, modifiedDate: SEEDED };
  const seed = {
    restaurants: [
      { guid: A, general: general('Attacker Kitchen') },
      { guid: B, general: general('Target Bistro Secret Name') },
    ],
    employees: [
      { restaurantGuid: A, guid: A_EMPLOYEE, externalId: SHARED_EMPLOYEE_ID, ...dated },
      { restaurantGuid: A, guid: A_ARCHIVED, deleted: true, ...dated, deletedDate: SEEDED },
      {
        restaurantGuid: B,
        guid: B_EMPLOYEE,
        externalId: SHARED_EMPLOYEE_ID,
        firstName: 'Bea',
        passcode: '9931',
        deleted: true,
        ...dated,
        deletedDate: SEEDED,
      },
      {
        restaurantGuid: B,
        guid: 'b1000000-0000-4000-8000-000000000002',
        externalId: B_ONLY_EMPLOYEE_ID,
        deleted: true,
        ...dated,
        deletedDate: SEEDED,
      },
    ],
    shifts: [
      { restaurantGuid: A, guid: A_SHIFT, externalId: SHARED_SHIFT_ID, ...dated },
      {
        restaurantGuid: B,
        guid: B_SHIFT,
        externalId: SHARED_SHIFT_ID,
        deleted: true,
        ...dated,
        deletedDate: SEEDED,
      },
      {
        restaurantGuid: B,
        guid: 'b2000000-0000-4000-8000-000000000002',
        externalId: B_ONLY_SHIFT_ID,
        deleted: true,
        ...dated,
        deletedDate: SEEDED,
      },
    ],
    clients: [
      {
        clientId: 'suite-client',
        clientSecret: CLIENT_SECRET,
        scopes: ['labor.employees:write', 'labor.shifts:write', 'restaurants:read'],
        restaurants: [A],
      },
    ],
  };
  const path = join(tmpdir(), `workforce-kit-security-seed-${randomBytes(6).toString('hex')}.json`);
  await writeFile(path, JSON.stringify(seed));
  return path;
}

const base64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/**
 * A JWT of any header and claims, signed by hand (HMAC with `key`, or no signature for `none`),
 * so that the suite can make the tokens a library refuses to make.
 */
export function forgeJwt(
  header: Readonly<Record<string, unknown>>,
  claims: Readonly<Record<string, unknown>>,
  key: string = SECRET,
): string {
  const input = `${base64url(header)}.${base64url(claims)}`;
  if (header.alg === 'none') return `${input}.`;
  const hash = header.alg === 'HS512' ? 'sha512' : 'sha256';
  return `${input}.${createHmac(hash, key).update(input).digest('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);

/** The claims of a good token for restaurant A with every scope; `extra` overrides any. */
export function claims(extra: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: 'suite',
    scope: 'labor.employees:write labor.shifts:write restaurants:read',
    restaurants: [A],
    iat: now(),
    exp: now() + 600,
    ...extra,
  };
}

/** A good HS256 token; `extra` overrides claims. */
export const token = (extra: Readonly<Record<string, unknown>> = {}) =>
  forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims(extra));

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

/** One request with fetch; the answer, its body parsed when it is JSON. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array,
): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Not JSON: the text is kept.
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The headers of an API call in a restaurant's context with a token. */
export const asClient = (bearer: string, context: string = A) => ({
  authorization: `Bearer ${bearer}`,
  'platform-restaurant-external-id': context,
});

/** A raw socket to the server; what it received, and whether it closed. */
export interface RawConnection {
  readonly socket: Socket;
  received(): string;
  readonly closed: Promise<void>;
}

export async function rawConnection(baseUrl: string): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => received, closed };
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return settled;
}

/** The resident memory of a process, in MiB (Linux). */
export async function rssMiB(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

/** What the suite tried and what came back, printed at the end. */
export interface Attempt {
  readonly store: string;
  readonly attack: string;
  readonly expected: string;
  readonly observed: string;
}

export const report: Attempt[] = [];

export function printReport(): void {
  const width = (key: keyof Attempt) => Math.max(...report.map((a) => a[key].length), key.length);
  const columns = ['store', 'attack', 'expected', 'observed'] as const;
  const line = (cells: Record<(typeof columns)[number], string>) =>
    columns.map((c) => cells[c].padEnd(width(c))).join(' | ');
  const rows = [
    line({ store: 'store', attack: 'attack', expected: 'expected', observed: 'observed' }),
    ...report.map(line),
  ];
  console.log(`adversarial suite: ${report.length} attacks\n${rows.join('\n')}`);
}

/**
 * A socket to the server from `localAddress`, held open. On Linux every address of 127.0.0.0/8
 * is this machine's loopback: 127.0.0.2 and 127.0.0.3 stand for clients other than 127.0.0.1.
 */
export interface HeldConnection {
  readonly socket: Socket;
  /** Whether the socket has closed (the server closed it, or the test destroyed it). */
  isClosed(): boolean;
}

/** How long a client of the helpers below waits for a connection or an answer. */
const CLIENT_WAIT_MS = 10_000;

/** Connects from `localAddress`; refused or not connected within 10 s, the socket is destroyed. */
export async function connectFrom(baseUrl: string, localAddress: string): Promise<HeldConnection> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect({ port: Number(port), host: hostname, localAddress });
  let closed = false;
  socket.once('close', () => {
    closed = true;
  });
  socket.setTimeout(CLIENT_WAIT_MS, () => socket.destroy(new Error('not connected in time')));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setTimeout(0);
  socket.on('error', () => {});
  return { socket, isClosed: () => closed };
}

/**
 * One GET on a connection of its own from `localAddress`, closed after the answer (or, with an
 * `http.Agent` for `from`, on a connection of that agent): its status, or the error's code when
 * the connection was refused (`TIMEOUT`: no answer within 10 s). `onSocket` is told of the
 * connection it went on.
 */
export function getFrom(
  baseUrl: string,
  from: string | Agent,
  path: string,
  headers: Record<string, string> = {},
  onSocket?: (socket: Socket) => void,
): Promise<number | string> {
  const { hostname, port } = new URL(baseUrl);
  const connection =
    typeof from === 'string' ? { localAddress: from, agent: false } : { agent: from };
  return new Promise((resolve) => {
    const req = httpGet(
      { host: hostname, port: Number(port), path, headers, ...connection },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      },
    );
    if (onSocket !== undefined) req.once('socket', onSocket);
    req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.setTimeout(CLIENT_WAIT_MS, () => {
      req.destroy();
      resolve('TIMEOUT');
    });
  });
}

/**
 * Makes sure this process may hold `needed` files open at once (sockets count), raising its limit
 * as a user would with `ulimit -n` when it is lower: `prlimit` on this process (which raises the
 * hard limit only as root). The processes it starts afterwards inherit it. Throws, saying what to
 * run, when the limit stays too low. Linux only (`/proc/self/limits`).
 */
export async function ensureOpenFiles(needed: number): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const limits = async () => {
    const line = /^Max open files\s+(\S+)\s+(\S+)/m.exec(
      await readFile('/proc/self/limits', 'utf8'),
    );
    const value = (text = '0') => (text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text));
    return { soft: value(line?.[1]), hard: value(line?.[2]) };
  };
  const before = await limits();
  if (before.soft >= needed) return;
  const { execFile } = await import('node:child_process');
  const hard = Math.max(before.hard, needed);
  await new Promise<void>((resolve) => {
    execFile(
      'prlimit',
      [`--pid=${process.pid}`, `--nofile=${needed}:${Number.isFinite(hard) ? hard : 'unlimited'}`],
      () => resolve(),
    );
  });
  const after = await limits();
  if (after.soft < needed) {
    throw new Error(
      `this test holds ${needed} sockets open at once, over the open-file limit (${after.soft}, hard ${after.hard}): raise it (ulimit -n ${needed}, as root or in /etc/security/limits.conf) and run it again`,
    );
  }
}

/** A value of the server's Prometheus metrics text, such as `name{label="x"}`; NaN when absent. */
export function metric(text: string, series: string): number {
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

/** The server's metrics now. */
export async function metricsOf(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(CLIENT_WAIT_MS) });
  return res.text();
}

/** What a slow-headers attack saw of the server. */
export interface TrickleOutcome {
  /** Sockets connected in all (each socket's place is taken again when it closes). */
  readonly opened: number;
  /** Sockets the server closed with 408 (Node's headers timeout). */
  readonly timedOut: number;
}

/** A slow-headers attack under way: its sockets open now; stop it for its outcome. */
export interface Trickle {
  /** Its sockets connected and not closed, now. */
  open(): number;
  /** Closes its sockets and stops opening new ones. */
  stop(): TrickleOutcome;
}

/**
 * Slowloris from one address: `sockets` connections from `localAddress`, each sending a request's
 * headers a byte a second, never to their end. A socket the server closes (refused, closed to
 * make room, or timed out) is replaced by a new one after `reopenMs`, so that the attack keeps
 * its size until stopped.
 */
export function trickle(
  baseUrl: string,
  localAddress: string,
  sockets: number,
  reopenMs = 100,
): Trickle {
  const { hostname, port } = new URL(baseUrl);
  const head = 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ';
  /** Every socket not closed, connected or not yet. */
  const live = new Set<Socket>();
  /** The connected ones, and the bytes each has sent. */
  const sent = new Map<Socket, number>();
  let opened = 0;
  let timedOut = 0;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const place = () => {
    const socket = connect({ port: Number(port), host: hostname, localAddress });
    live.add(socket);
    socket.on('error', () => {});
    socket.once('connect', () => {
      opened += 1;
      sent.set(socket, 1);
      socket.write(head.slice(0, 1));
    });
    socket.once('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 408')) timedOut += 1;
    });
    socket.once('close', () => {
      live.delete(socket);
      sent.delete(socket);
      if (stopped) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        place();
      }, reopenMs);
      timers.add(timer);
    });
  };
  for (let i = 0; i < sockets; i += 1) place();
  const drip = setInterval(() => {
    for (const [socket, count] of sent) {
      socket.write(head[count] ?? 'a');
      sent.set(socket, count + 1);
    }
  }, 1_000);
  return {
    open: () => sent.size,
    stop() {
      stopped = true;
      clearInterval(drip);
      for (const timer of timers) clearTimeout(timer);
      for (const socket of live) socket.destroy();
      return { opened, timedOut };
    },
  };
}
