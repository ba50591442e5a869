// Where the kit gets a deployment's events from: a source hands each event it receives to the
// kit's sink, and each delivery it refused (one that failed verification, never an event). Two
// sources come with the kit: the recorder, whose `record` an app in process is given as its
// `onEvent`, and the webhook receiver (webhook-receiver.ts).

/** The types of the events, as the spec's `webhooks` section names them. */
export type EventType = 'employee.archived' | 'employee.unarchived' | 'shift.deleted';

/** One event as a source received it (a redelivery has the id of the event it repeats). */
export interface ObservedEvent {
  /** The event's id: its `webhook-id`, or the `eventId` of an in-process event. */
  readonly id: string;
  /** Its type, in the spec's words (`employee.archived`); any other text is a broken event. */
  readonly type: string;
  /** The restaurant it names (`data.restaurantGuid`). */
  readonly restaurantGuid: string | undefined;
  /** The record it is about (`data.employeeGuid` or `data.shiftGuid`). */
  readonly subject: string | undefined;
  /** The `X-Request-Id` of the request that made the change (`data.requestId`). */
  readonly requestId: string | undefined;
  /** The record as the event carries it (`data.record`); absent for an in-process event. */
  readonly record?: unknown;
  /** The body as received, byte for byte (a webhook's); absent for an in-process event. */
  readonly body?: string;
  /** The delivery's headers, their names in lower case (a webhook's). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A delivery a source refused: it failed verification, and is never counted as an event. */
export interface RefusedDelivery {
  /** Why it was refused, in a sentence. */
  readonly reason: string;
  /** Its `webhook-id`, when it had one. */
  readonly id?: string;
  /** The `data.requestId` its body claims (unverified: only to name the call in a report). */
  readonly requestId?: string;
}

/** Where a source hands what it receives: the kit's side of an {@link EventSource}. */
export interface EventSink {
  /** An event, as it arrived (a redelivery included). */
  event(event: ObservedEvent): void;
  /** A delivery that failed verification. */
  refused(delivery: RefusedDelivery): void;
}

/**
 * A deployment's events, as the kit is given them: the recorder of an app in process
 * ({@link createEventRecorder}), the webhook receiver (`startWebhookReceiver`), or a source of
 * your own (a queue's consumer) that hands each event to the sink as it comes.
 *
 * @example
 * ```ts
 * import { createRouter } from '@workforce-kit/express-adapter';
 * import express from 'express';
 *
 * const events = createEventRecorder();
 * const app = express().use(createRouter({ store, auth: verifier, onEvent: events.record }));
 * const report = await checkApiContract({ target: app, seed, auth: { hs256Secret }, events });
 * ```
 */
export interface EventSource {
  /**
   * What its events carry: `signatures`, whether each delivery was verified (a refused one is
   * handed to the sink's `refused`); `bodies`, whether each event has its body and its record
   * (then held to the spec's webhooks section and to the change's answer).
   */
  readonly carries: { readonly signatures: boolean; readonly bodies: boolean };
  /**
   * Hands every event from now on to `sink`, those received before first; returns the function
   * that stops it. One sink at a time.
   */
  subscribe(sink: EventSink): () => void;
}

/** An event of the core, as `onEvent` is given it (structurally: the kit does not need the core). */
export interface DomainEventInput {
  readonly type: 'EmployeeArchived' | 'EmployeeUnarchived' | 'ShiftDeleted';
  readonly eventId: string;
  readonly requestId: string;
  readonly restaurantGuid: string;
  readonly employeeGuid?: string;
  readonly shiftGuid?: string;
}

/** The recorder of an app in process: its `record` is the app's `onEvent`. */
export interface EventRecorder extends EventSource {
  /** Records one event: give it to the app as `onEvent` (it needs no `this`). */
  readonly record: (event: DomainEventInput) => void;
}

const TYPES: Readonly<Record<DomainEventInput['type'], EventType>> = {
  EmployeeArchived: 'employee.archived',
  EmployeeUnarchived: 'employee.unarchived',
  ShiftDeleted: 'shift.deleted',
};

/**
 * Hands events to one sink at a time, keeping those that come while none listens (an app may
 * change records before the kit subscribes).
 */
export class EventRelay {
  #sink: EventSink | undefined;
  readonly #kept: ((sink: EventSink) => void)[] = [];

  /** Hands `deliver` the sink now, or keeps it for the next sink. */
  hand(deliver: (sink: EventSink) => void): void {
    if (this.#sink === undefined) this.#kept.push(deliver);
    else deliver(this.#sink);
  }

  subscribe(sink: EventSink): () => void {
    if (this.#sink !== undefined) throw new Error('an event source hands its events to one sink');
    this.#sink = sink;
    for (const deliver of this.#kept.splice(0)) deliver(sink);
    return () => {
      if (this.#sink === sink) this.#sink = undefined;
    };
  }
}

/**
 * The events of an app in process: pass `record` as the app's `onEvent` (of `createRouter`,
 * `createApi` or any adapter), and the recorder as the kit's `events`. Its events carry no body
 * and no record (`onEvent` is given neither), so their records are not compared with the answers.
 *
 * @returns the recorder, an {@link EventSource}
 * @example
 * ```ts
 * import { createRouter } from '@workforce-kit/express-adapter';
 * import express from 'express';
 *
 * const events = createEventRecorder();
 * const app = express().use(createRouter({ store, auth: verifier, onEvent: events.record }));
 * describeApiContract('my app', { target: app, seed, auth: { hs256Secret }, events });
 * ```
 */
export function createEventRecorder(): EventRecorder {
  const relay = new EventRelay();
  return {
    carries: { signatures: false, bodies: false },
    record: (event) => {
      const observed: ObservedEvent = {
        id: event.eventId,
        type: TYPES[event.type] ?? String(event.type),
        restaurantGuid: event.restaurantGuid,
        subject: event.employeeGuid ?? event.shiftGuid,
        requestId: event.requestId,
      };
      relay.hand((sink) => sink.event(observed));
    },
    subscribe: (sink) => relay.subscribe(sink),
  };
}
