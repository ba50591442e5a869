// Deployments in process whose events are wrong one way each, for the tests that each rule of the
// events catches its fault; and the same deployments with their events right. All are the
// reference router over the memory store (router-target.ts). Their events reach the kit one of
// two ways: `onEvent` straight to the kit's recorder; or a relay in process, as the reference
// server's outbox relay sends them (each committed change's events with the record stored, one
// record's in order, each delivery signed by the reference server's own deliverer and retried
// until a 2xx), to the kit's webhook receiver, directly or through a proxy.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Clock,
  type ConditionalWrite,
  type Employee,
  eventSubject,
  type MaybeAsync,
  type RecordedEvent,
  type Shift,
  type StorageUnavailable,
  storageUnavailable,
  toResultAsync,
} from '@workforce-kit/core';
import type { ApiStore } from '@workforce-kit/express-adapter';
import { createWebhookDeliverer } from '@workforce-kit/server';
import type { RequestHandler } from 'express';
import { errAsync, type Result, type ResultAsync } from 'neverthrow';
import { afterEach } from 'vitest';
import { createEventRecorder, type EventRecorder } from '../../src/event-source.js';
import { type ContractOptions, checkApiContract, type Report } from '../../src/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../src/webhook-receiver.js';
import { after, blindWrite, nextTurn } from './mutants.js';
import { AUTH, demoSeedJson, type RouterTarget, routerTarget } from './router-target.js';

/** A webhook secret, as the reference server is given one. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** A target and the source of its events, for `checkApiContract`. */
export interface EventTarget {
  readonly target: { readonly handler: RouterTarget['handler']; readonly reset: () => void };
  readonly events: EventRecorder | WebhookReceiver;
  /** Stops what the target started (a receiver, a proxy, a relay's retries). */
  close(): Promise<void>;
}

/** The ways a target's events reach the kit through its recorder wrong. */
export type RecorderFault =
  /** An event for a no-op: archiving an archived employee emits `employee.archived`. */
  | 'event-for-a-no-op'
  /** Two events of one record swapped: an event is held until the record's next one goes first. */
  | 'events-swapped'
  /**
   * Shift deletes skip the version check, and requests in flight together date their changes
   * alike: a lost update whose answers agree.
   */
  | 'lost-update-dates-coincide'
  /** A store that commits some changes and then fails (a 503), before the event is handed on. */
  | 'commits-then-fails';

/** How long an event is held for its record's next one, by `events-swapped`. */
const SWAP_WINDOW_MS = 30;

/** A request's own: the employee it found already archived, if it did. */
const requests = new AsyncLocalStorage<{ archived?: Employee }>();

/**
 * The reference router whose events reach the kit's recorder, wrong as `fault` says (right
 * without one).
 */
export async function recordedTarget(fault?: RecorderFault): Promise<EventTarget> {
  const events = createEventRecorder();
  let onEvent = events.record as (event: RecordedEvent) => void;
  if (fault === 'events-swapped') onEvent = swapping(events);
  const hooks = fault === undefined ? {} : hooksOf(fault, events);
  let router: RouterTarget;
  if (fault === 'lost-update-dates-coincide') {
    const { clock, countInFlight } = overlapClock();
    router = await routerTarget({ ...hooks, before: [countInFlight] }, undefined, {
      onEvent,
      clock,
    });
  } else {
    router = await routerTarget(hooks, undefined, { onEvent });
  }
  return {
    target: { handler: router.handler, reset: () => router.reset() },
    events,
    close: async () => {},
  };
}

/** How long {@link overlapClock} keeps one date while requests overlap. */
const OVERLAP_DATE_MS = 500;

/**
 * A clock that dates alike the changes of requests in flight together: the first reading since no
 * request was in flight is kept until none is, for at most {@link OVERLAP_DATE_MS} (well within
 * the kit's tolerance of a change dated before its request). Two deletes of one shift, each found
 * before the other wrote, are in flight together, so they answer the same dates on any machine.
 */
function overlapClock(): { clock: Clock; countInFlight: RequestHandler } {
  let inFlight = 0;
  let kept: { readonly date: Date; readonly until: number } | undefined;
  const countInFlight: RequestHandler = (_req, res, next) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) kept = undefined;
    });
    next();
  };
  const now = () => {
    const time = Date.now();
    if (kept === undefined || time > kept.until) {
      kept = { date: new Date(time), until: time + OVERLAP_DATE_MS };
    }
    return kept.date;
  };
  return { clock: { now }, countInFlight };
}

/** An `onEvent` that holds each event until its record's next one has gone first, or a while. */
function swapping(recorder: EventRecorder): (event: RecordedEvent) => void {
  const held = new Map<string, { event: RecordedEvent; timer: NodeJS.Timeout }>();
  return (event) => {
    const subject = eventSubject(event);
    const earlier = held.get(subject);
    if (earlier !== undefined) {
      clearTimeout(earlier.timer);
      held.delete(subject);
      recorder.record(event);
      recorder.record(earlier.event);
      return;
    }
    const timer = setTimeout(() => {
      held.delete(subject);
      recorder.record(event);
    }, SWAP_WINDOW_MS);
    held.set(subject, { event, timer });
  };
}

function hooksOf(fault: RecorderFault, recorder: EventRecorder) {
  switch (fault) {
    case 'event-for-a-no-op':
      return noOpEvents(recorder);
    case 'events-swapped':
      return {};
    case 'lost-update-dates-coincide':
      return {
        store: (store: ApiStore): ApiStore => ({
          ...store,
          shifts: {
            find: after(nextTurn, (restaurant, id) => store.shifts.find(restaurant, id)),
            write: blindWrite(store.shifts, 'shiftId'),
          },
        }),
      };
    case 'commits-then-fails':
      return { store: committingThenFailing };
    default: {
      const unknown: never = fault;
      throw new Error(`no fault ${String(unknown)}`);
    }
  }
}

/**
 * Hooks that emit `employee.archived` for an archive that found its employee archived already:
 * the store notes what the archive found, and the answer's end emits the event.
 */
function noOpEvents(recorder: EventRecorder) {
  const noting: RequestHandler = (req, res, next) => {
    const scope: { archived?: Employee } = {};
    // The API writes its answer's headers in one writeHead: the request id is read there.
    let requestId = '';
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
    res.writeHead = ((...args: unknown[]) => {
      const headers = args.find((arg) => arg !== null && typeof arg === 'object');
      if (Array.isArray(headers)) {
        const at = headers.findIndex((h) => String(h).toLowerCase() === 'x-request-id');
        if (at >= 0) requestId = String(headers[at + 1]);
      } else if (headers !== undefined) {
        const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-request-id');
        if (entry !== undefined) requestId = String(entry[1]);
      }
      return writeHead(...args);
    }) as typeof res.writeHead;
    res.once('finish', () => {
      const found = scope.archived;
      if (req.method !== 'DELETE' || res.statusCode !== 200 || found === undefined) return;
      recorder.record({
        type: 'EmployeeArchived',
        eventId: randomUUID(),
        requestId,
        restaurantGuid: found.restaurantGuid,
        employeeGuid: found.guid,
      });
    });
    requests.run(scope, next);
  };
  return {
    before: [noting],
    store: (store: ApiStore): ApiStore => ({
      ...store,
      employees: {
        ...store.employees,
        find: (restaurant, id) => {
          const scope = requests.getStore();
          return toResultAsync(store.employees.find(restaurant, id)).map((found) => {
            if (scope !== undefined && found?.deleted) scope.archived = found;
            return found;
          });
        },
      },
    }),
  };
}

/**
 * A store that, of the writes it is asked for, makes one in four and then reports it lost (the
 * database's acknowledgement never came): the change is committed, the answer is a 503, and no
 * event is handed on (the API emits only the events of a change it answered).
 */
function committingThenFailing(store: ApiStore): ApiStore {
  let writes = 0;
  const flaky =
    <T, E>(write: (change: ConditionalWrite<T>) => MaybeAsync<Result<T, E>>) =>
    (change: ConditionalWrite<T>): ResultAsync<T, E | StorageUnavailable> => {
      const lost = writes++ % 4 === 1;
      const made = toResultAsync(write(change));
      return lost
        ? made.andThen(() => errAsync(storageUnavailable('write', 'the acknowledgement was lost')))
        : made;
    };
  return {
    ...store,
    employees: { ...store.employees, write: flaky((c) => store.employees.write(c)) },
    shifts: { ...store.shifts, write: flaky((c) => store.shifts.write(c)) },
  };
}

/** The ways a target's webhooks reach the kit's receiver wrong. */
export type WebhookFault =
  /** Each shift's `shift.deleted` delivered twice, the second under another webhook-id. */
  | 'delivered-twice-under-two-ids'
  /** A proxy between the relay and the kit answers the first `shift.deleted` 204, and drops it. */
  | 'dropped-after-2xx'
  /** The record in each `employee.archived` is not the answer's: its modifiedDate a millisecond on. */
  | 'record-not-the-answer'
  /** The first attempt of each `employee.unarchived` signed with another secret than the kit's (a retry is signed right). */
  | 'bad-signature';

/**
 * The reference router whose events a relay in process sends as signed webhooks to the kit's
 * receiver, wrong as `fault` says (right without one).
 */
export async function webhookTarget(fault?: WebhookFault): Promise<EventTarget> {
  const secret = newWebhookSecret();
  const receiver = await startWebhookReceiver({ secret });
  const proxy = fault === 'dropped-after-2xx' ? await droppingProxy(receiver.url) : undefined;
  const relay = new InProcessRelay(`${proxy?.url ?? receiver.url}/hooks/workforce`, secret, fault);
  const router = await routerTarget({ store: (store) => relay.relaying(store) });
  return {
    target: { handler: router.handler, reset: () => router.reset() },
    events: receiver,
    close: async () => {
      relay.close();
      await proxy?.close();
      await receiver.close();
    },
  };
}

/**
 * The outbox relay's way, in process: each committed write's events are sent with the record
 * stored, one record's in order, each delivery retried until a 2xx.
 */
class InProcessRelay {
  readonly #destination: string;
  readonly #fault: WebhookFault | undefined;
  readonly #deliver: ReturnType<typeof createWebhookDeliverer>;
  readonly #wrongly: ReturnType<typeof createWebhookDeliverer>;
  readonly #chains = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();
  #position = 0;

  constructor(destination: string, secret: string, fault: WebhookFault | undefined) {
    this.#destination = destination;
    this.#fault = fault;
    this.#deliver = createWebhookDeliverer({ secret, timeoutMs: 2000 });
    this.#wrongly = createWebhookDeliverer({ secret: newWebhookSecret(), timeoutMs: 2000 });
  }

  /** `store`, its writes' events relayed once committed. */
  relaying(store: ApiStore): ApiStore {
    const relayed =
      <T extends Employee | Shift, E>(
        write: (change: ConditionalWrite<T>) => MaybeAsync<Result<T, E>>,
      ) =>
      (change: ConditionalWrite<T>) =>
        toResultAsync(write(change)).map((stored) => {
          for (const event of change.events) this.#emit(event, stored);
          return stored;
        });
    return {
      ...store,
      employees: { ...store.employees, write: relayed((c) => store.employees.write(c)) },
      shifts: { ...store.shifts, write: relayed((c) => store.shifts.write(c)) },
    };
  }

  #emit(event: RecordedEvent, record: Employee | Shift): void {
    const sent: [RecordedEvent, Employee | Shift][] = [[event, record]];
    if (this.#fault === 'delivered-twice-under-two-ids' && event.type === 'ShiftDeleted') {
      sent.push([{ ...event, eventId: randomUUID() }, record]);
    }
    if (this.#fault === 'record-not-the-answer' && event.type === 'EmployeeArchived') {
      const later = new Date(Date.parse(record.modifiedDate) + 1).toISOString();
      sent[0] = [event, { ...record, modifiedDate: later }];
    }
    const subject = eventSubject(event);
    let chain = this.#chains.get(subject) ?? Promise.resolve();
    for (const [each, stored] of sent) chain = chain.then(() => this.#send(each, stored));
    this.#chains.set(subject, chain);
  }

  async #send(event: RecordedEvent, record: Employee | Shift): Promise<void> {
    const wrong = this.#fault === 'bad-signature' && event.type === 'EmployeeUnarchived';
    const delivery = {
      destination: this.#destination,
      position: ++this.#position,
      event,
      record: record as unknown as Readonly<Record<string, unknown>>,
      recordedAt: Date.now(),
    };
    for (let attempt = 1; !this.#stop.signal.aborted; attempt++) {
      const deliver = wrong && attempt === 1 ? this.#wrongly : this.#deliver;
      const [outcome] = await deliver([{ ...delivery, attempt }], this.#stop.signal);
      if (outcome?.outcome === 'delivered') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops retrying. */
  close(): void {
    this.#stop.abort();
  }
}

/**
 * A proxy between a relay and the kit that answers the first `shift.deleted` delivery 204 and
 * drops it; it forwards every other one, and answers with the kit's status.
 */
async function droppingProxy(to: string): Promise<{ url: string; close(): Promise<void> }> {
  let dropped = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (!dropped && body.includes('"type":"shift.deleted"')) {
        dropped = true;
        res.writeHead(204).end();
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => name.startsWith('webhook-')),
      ) as Record<string, string>;
      fetch(`${to}${req.url}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
      }).then(
        (answer) => res.writeHead(answer.status).end(),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A file's kit runs against event targets, at `rngSeed`, each target closed after its test (this
 * registers an `afterEach`: call it at the file's top level). A run is short unless `options` say
 * otherwise: 25 runs, 500 ms to shrink and to wait for events.
 */
export function eventRuns(
  rngSeed: number,
): (target: EventTarget, options?: Partial<ContractOptions>) => Promise<Report> {
  let made: EventTarget | undefined;
  afterEach(async () => {
    await made?.close();
    made = undefined;
  });
  return (target, options = {}) => {
    made = target;
    return checkApiContract({
      target: target.target,
      seed: demoSeedJson,
      auth: AUTH,
      events: target.events,
      rngSeed,
      runs: 25,
      shrinkTimeLimitMs: 500,
      eventsTimeoutMs: 500,
      ...options,
    });
  };
}
