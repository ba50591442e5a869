/**
 * When a relay's loops look for work: each sleeps between looks, at most a poll interval, and a
 * wake-up (a notification, or a loop that found work) ends one sleep early. A wake-up that finds
 * no loop asleep is kept, so that the next loop about to sleep looks again instead: no wake-up is
 * lost between a look that found nothing and the sleep after it.
 */
export interface WakeScheduler {
  /** Wakes one sleeping loop (not all: one look finds what one change queued), or is kept. */
  wake(): void;
  /** Forgets a kept wake-up: called by a loop just before it looks, which answers it. */
  clear(): void;
  /**
   * Sleeps `ms`, or until woken; resolves at once when a wake-up is kept or the scheduler is
   * closed.
   */
  sleep(ms: number): Promise<void>;
  /** The loops asleep now. */
  readonly sleeping: number;
  /** Whether {@link WakeScheduler.close} was called. */
  readonly closed: boolean;
  /** Wakes every loop; every later sleep resolves at once. */
  close(): void;
}

/**
 * A {@link WakeScheduler}, on the runtime's timers.
 *
 * @example
 * ```ts
 * import { listenForNotifications } from './notifications.js';
 *
 * const scheduler = createWakeScheduler();
 * await listenForNotifications(pool, 'workforce_kit_outbox', {
 *   onNotify: () => scheduler.wake(),
 *   onError: () => scheduler.wake(),
 * });
 * while (!scheduler.closed) {
 *   scheduler.clear();
 *   if ((await claim()).length === 0) await scheduler.sleep(pollIntervalMs);
 * }
 * ```
 */
export function createWakeScheduler(): WakeScheduler {
  let woken = false;
  let closed = false;
  const sleepers = new Set<() => void>();
  return {
    wake() {
      woken = true;
      const [first] = sleepers;
      if (first === undefined) return;
      sleepers.delete(first);
      first();
    },
    clear() {
      woken = false;
    },
    sleep(ms) {
      return new Promise<void>((resolve) => {
        if (woken || closed) {
          resolve();
          return;
        }
        const timer = setTimeout(() => {
          sleepers.delete(done);
          resolve();
        }, ms);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        sleepers.add(done);
      });
    },
    get sleeping() {
      return sleepers.size;
    },
    get closed() {
      return closed;
    },
    close() {
      closed = true;
      woken = true;
      for (const resolve of sleepers) resolve();
      sleepers.clear();
    },
  };
}
