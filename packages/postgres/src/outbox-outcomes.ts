import type { ErrorReport, HandedOver } from './outbox-hand-over.js';
import { type RetryPolicy, retryDelayMs } from './outbox-retry.js';
import { type OutcomeRow, RECORD_OUTCOMES } from './outbox-sql.js';
import type {
  DeliveryCounts,
  DeliveryOutcome,
  DeliveryResult,
  OutboxDelivery,
} from './outbox-types.js';
import type { SqlClient } from './sql-client.js';

/** Handed-over claims kept while the database is unreachable: a long outage holds this many. */
const MOST_KEPT = 100;

/** Options of {@link OutcomeRecorder}. */
export interface OutcomeRecorderOptions {
  readonly client: SqlClient;
  readonly policy: Required<RetryPolicy>;
  readonly onOutcome: ((outcome: DeliveryOutcome) => void) | undefined;
  readonly report: ErrorReport;
}

/**
 * Records what the deliverer said of each claim (delivered, a retry, or dead past the policy's
 * bounds), counts the outcomes, and keeps what the database could not take yet.
 */
export class OutcomeRecorder {
  readonly #client: SqlClient;
  readonly #policy: Required<RetryPolicy>;
  readonly #onOutcome: ((outcome: DeliveryOutcome) => void) | undefined;
  readonly #report: ErrorReport;
  readonly #counts = { delivered: 0, retry: 0, dead: 0, superseded: 0 };
  /** Oldest first; recorded before the relay's next claim. */
  #kept: HandedOver[] = [];

  constructor(options: OutcomeRecorderOptions) {
    this.#client = options.client;
    this.#policy = options.policy;
    this.#onOutcome = options.onOutcome;
    this.#report = options.report;
  }

  /** The outcomes recorded so far. */
  counts(): DeliveryCounts {
    return { ...this.#counts };
  }

  /** Records a claim's outcomes; whether a delivery let a later event of its subject go. */
  async record(handedOver: HandedOver): Promise<boolean> {
    const recorded = await this.#update(handedOver);
    const states = new Map(
      recorded.map((row) => [`${row.destination} ${row.position}`, row.state]),
    );
    handedOver.deliveries.forEach((delivery, i) => {
      const state = states.get(`${delivery.destination} ${delivery.position}`);
      this.#count(
        delivery,
        state === undefined ? 'superseded' : state === 'pending' ? 'retry' : state,
        handedOver.results[i],
        handedOver.durationMs,
      );
    });
    return recorded.some((row) => row.unblocks);
  }

  /**
   * Keeps outcomes the database did not take, to record before the next claim, where the claim is
   * still this relay's (no other took it over after the lease ran out): the receiver is spared
   * duplicates.
   */
  keep(handedOver: HandedOver): void {
    this.#kept = [...this.#kept, handedOver].slice(-MOST_KEPT);
  }

  /** Records the kept outcomes; false while the database is still unreachable. */
  async recordKept(): Promise<boolean> {
    for (let first = this.#kept[0]; first !== undefined; first = this.#kept[0]) {
      try {
        await this.record(first);
      } catch (error) {
        this.#report(error, 'record outcomes');
        return false;
      }
      this.#kept = this.#kept.slice(1);
    }
    return true;
  }

  /** The one statement that records a claim's outcomes: the state of each delivery still claimed. */
  async #update({ claimId, deliveries, results }: HandedOver): Promise<OutcomeRow[]> {
    const policy = this.#policy;
    const { rows } = await this.#client.query(RECORD_OUTCOMES, [
      deliveries.map((d) => d.destination),
      deliveries.map((d) => String(d.position)),
      results.map((r) => r.outcome),
      results.map((r) => errorOf(r)?.slice(0, 2000) ?? null),
      deliveries.map((d) => retryDelayMs(d.attempt, policy)),
      policy.maxAttempts,
      policy.maxAgeMs,
      claimId,
    ]);
    return rows as OutcomeRow[];
  }

  #count(
    delivery: OutboxDelivery,
    outcome: DeliveryOutcome['outcome'],
    result: DeliveryResult | undefined,
    durationMs: number,
  ): void {
    this.#counts[outcome] += 1;
    const error = result === undefined ? undefined : errorOf(result);
    this.#onOutcome?.({ delivery, outcome, durationMs, ...(error === undefined ? {} : { error }) });
  }
}

/** A retry's error; none for a delivery. */
const errorOf = (result: DeliveryResult) => (result.outcome === 'retry' ? result.error : undefined);
