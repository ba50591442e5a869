import { canListen, listenForNotifications, type NotificationListener } from './notifications.js';
import type { ErrorReport } from './outbox-hand-over.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import { createWakeScheduler } from './relay-scheduler.js';
import type { SqlClient } from './sql-client.js';

/** The payload of a busy relay's request for help (a change's notification has none). */
const HELP = 'help';

/** The advisory lock that elects the relay woken by changes' notifications. */
const LEAD_LOCK_KEY = 7438291003n;

/**
 * When a relay's loops look for work: on a notification, on a poll, or at once when there may be
 * more. Of several relays, the one that leads is woken by changes; it asks the others for help
 * when its loops are all busy.
 */
export class RelayWakeups {
  readonly #client: SqlClient;
  readonly #report: ErrorReport;
  readonly #scheduler = createWakeScheduler();
  #listener: NotificationListener | undefined;
  /** Set when this relay asked the others for help; cleared when one of its loops claims. */
  #helpAsked = false;

  constructor(client: SqlClient, report: ErrorReport) {
    this.#client = client;
    this.#report = report;
  }

  /** Whether the relay stopped: its loops end. */
  get closed(): boolean {
    return this.#scheduler.closed;
  }

  /** Listens for the outbox's notifications, where the client can; it polls otherwise. */
  async listen(leadRetryMs: number): Promise<void> {
    if (!canListen(this.#client)) return;
    this.#listener = await listenForNotifications(
      this.#client,
      OUTBOX_CHANNEL,
      {
        onNotify: (payload) => this.#onNotify(payload),
        onError: (error) => this.#report(error, 'listen'),
      },
      { lead: { key: LEAD_LOCK_KEY, retryMs: leadRetryMs } },
    );
  }

  /** Wakes one sleeping loop, or the next one about to sleep. */
  wake(): void {
    this.#scheduler.wake();
  }

  /** Called by a loop about to claim, which answers the wake-ups so far. */
  claiming(): void {
    this.#scheduler.clear();
    this.#helpAsked = false;
  }

  /** Sleeps until woken, or `ms`. */
  sleep(ms: number): Promise<void> {
    return this.#scheduler.sleep(ms);
  }

  /** Sleeps `ms` after a failure, or until a later wake-up: an earlier one must not make a busy loop. */
  async sleepAfterFailure(ms: number): Promise<void> {
    this.#scheduler.clear();
    await this.#scheduler.sleep(ms);
  }

  /** A full claim may have left more: another loop of this relay looks too, or another relay. */
  moreMayBeDue(): void {
    if (this.#scheduler.sleeping > 0) this.#scheduler.wake();
    else this.#askForHelp();
  }

  /** Wakes every loop, and makes every later sleep end at once. */
  close(): void {
    this.#scheduler.close();
  }

  /** Stops listening. */
  async unlisten(): Promise<void> {
    await this.#listener?.close().catch((error) => this.#report(error, 'unlisten'));
  }

  /** All this relay's loops are busy: the other relays' sleeping loops are woken (once a claim). */
  #askForHelp(): void {
    if (this.#helpAsked || this.#scheduler.closed) return;
    this.#helpAsked = true;
    this.#client
      .query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, HELP])
      .catch((error) => this.#report(error, 'notify'));
  }

  /**
   * A change's notification wakes the leading relay only (one claim finds what one change
   * queued), which asks the others for help when its loops are all busy. A request for help, or a
   * listener that reconnected (notifications may have been missed), wakes any relay.
   */
  #onNotify(payload: string | null): void {
    if (payload === HELP || payload === null) {
      this.#scheduler.wake();
      return;
    }
    if (!(this.#listener?.leading ?? true)) return;
    if (this.#scheduler.sleeping === 0) this.#askForHelp();
    this.#scheduler.wake();
  }
}
