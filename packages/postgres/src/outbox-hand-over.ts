import type { Claim } from './outbox-claims.js';
import type { Deliverer, DeliveryResult } from './outbox-types.js';

/** Tells the relay's `onError` of a failure, and in which part (`deliver`, `claim`, …). */
export type ErrorReport = (error: unknown, context: string) => void;

/** A claim handed over: the deliverer's result for each of its deliveries, and how long it took. */
export interface HandedOver extends Claim {
  readonly results: readonly DeliveryResult[];
  readonly durationMs: number;
}

/** Hands claims to the deliverer, and aborts what it is handing over when the relay stops. */
export class DeliveryHandOver {
  readonly #deliver: Deliverer;
  readonly #report: ErrorReport;
  readonly #abort = new AbortController();

  constructor(deliver: Deliverer, report: ErrorReport) {
    this.#deliver = deliver;
    this.#report = report;
  }

  /** Whether {@link DeliveryHandOver.abort} was called. */
  get aborted(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Tells the deliverer to give up on what it is handing over. */
  abort(reason: Error): void {
    this.#abort.abort(reason);
  }

  /** Hands a claim over; a throw of the deliverer, or a result missing, is a retry. */
  async handOver(claim: Claim): Promise<HandedOver> {
    const started = performance.now();
    const results = await this.#resultsOf(claim);
    return { ...claim, results, durationMs: performance.now() - started };
  }

  /** The deliverer's results, one per delivery. */
  async #resultsOf({ deliveries }: Claim): Promise<readonly DeliveryResult[]> {
    try {
      const results = await this.#deliver(deliveries, this.#abort.signal);
      return deliveries.map((_, i) => {
        const result = results[i];
        return result?.outcome === 'delivered' || result?.outcome === 'retry'
          ? result
          : { outcome: 'retry', error: 'the deliverer reported no outcome' };
      });
    } catch (error) {
      this.#report(error, 'deliver');
      const message = error instanceof Error ? error.message : String(error);
      return deliveries.map(() => ({ outcome: 'retry', error: `deliverer failed: ${message}` }));
    }
  }
}
