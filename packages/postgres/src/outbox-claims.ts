import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '@workforce-kit/core';
import {
  type DestinationBacklog,
  outboxBacklog,
  registerOutboxDestinations,
} from './outbox-admin.js';
import { CLAIM, type ClaimRow, RELEASE } from './outbox-sql.js';
import type { OutboxDelivery } from './outbox-types.js';
import type { SqlClient } from './sql-client.js';
import { json } from './store-records.js';

/** A claim of due deliveries, made under one id. */
export interface Claim {
  readonly claimId: string;
  readonly deliveries: readonly OutboxDelivery[];
}

/** Options of {@link OutboxClaims}: whose deliveries it claims, how many, and for how long. */
export interface OutboxClaimsOptions {
  readonly client: SqlClient;
  readonly relayId: string;
  readonly destinations: readonly string[];
  readonly batchSize: number;
  readonly leaseMs: number;
}

/**
 * A relay's destinations in the outbox: registered, their due deliveries claimed under a lease
 * and given back, and their backlog.
 */
export class OutboxClaims {
  readonly #client: SqlClient;
  readonly #relayId: string;
  readonly #destinations: readonly string[];
  readonly #batchSize: number;
  readonly #leaseMs: number;

  constructor(options: OutboxClaimsOptions) {
    this.#client = options.client;
    this.#relayId = options.relayId;
    this.#destinations = [...new Set(options.destinations)];
    this.#batchSize = options.batchSize;
    this.#leaseMs = options.leaseMs;
  }

  /** Registers the destinations: from then on, every change queues a delivery to each. */
  async register(): Promise<void> {
    await registerOutboxDestinations(this.#client, this.#destinations);
  }

  /** The backlog of these destinations (the outbox may hold others). */
  async backlog(): Promise<DestinationBacklog[]> {
    const backlog = await outboxBacklog(this.#client);
    return backlog.filter((each) => this.#destinations.includes(each.destination));
  }

  /** Whether a claim took as many deliveries as one may: more may be due. */
  isFull(claim: Claim): boolean {
    return claim.deliveries.length >= this.#batchSize;
  }

  /** Claims at most a batch of due deliveries, under a new claim id. */
  async claim(): Promise<Claim> {
    const claimId = randomUUID();
    const { rows } = await this.#client.query(CLAIM, [
      this.#destinations,
      this.#batchSize,
      claimId,
      this.#relayId,
      this.#leaseMs,
    ]);
    return { claimId, deliveries: (rows as ClaimRow[]).map(deliveryOf) };
  }

  /** Gives a claim's pending deliveries back: due again at once, for any relay. */
  async release(claimId: string): Promise<void> {
    await this.#client.query(RELEASE, [claimId]);
  }
}

/** A claimed row as the deliverer is handed it. */
function deliveryOf(row: ClaimRow): OutboxDelivery {
  return {
    destination: row.destination,
    position: Number(row.position),
    event: json<RecordedEvent>(row.payload),
    record: json<Record<string, unknown> | null>(row.record) ?? null,
    attempt: Number(row.attempts),
    recordedAt: Number(row.recorded_at_ms),
  };
}
