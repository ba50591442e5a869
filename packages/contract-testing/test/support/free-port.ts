// A loopback port for a listener that must be named before it starts (a webhook receiver the
// server is told of at its start, a server restarted on its port). Taken below the kernel's
// ephemeral range, so that no outgoing connection nor port-0 listener of the other tests running
// meanwhile takes it between the probe and the real listen.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the kernel's ephemeral range (Linux's default where it cannot be read). */
function ephemeralStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 2048 ? first : 32768;
  } catch {
    return 32768;
  }
}

/** Whether a listener can bind `port` on the loopback address now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on now, below the ephemeral range, picked at random. */
export async function freePort(): Promise<number> {
  const below = ephemeralStart();
  for (;;) {
    const port = 1024 + Math.floor(Math.random() * (below - 1024));
    if (await bindable(port)) return port;
  }
}
