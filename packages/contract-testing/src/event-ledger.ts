// The events of a run, held to the calls that caused them, as Jepsen's total-queue checker holds
// what came out of a queue to what was acknowledged: each call the kit sends is entered with what
// its answer says of its events (a change: exactly one; a refusal, a no-op or a read: none; an
// answer that does not say whether it happened: zero or one; a call of a concurrent case: what
// its case's check decides), and each event that comes is matched to its call by its request id
// and judged. A finding goes to the run of its call while that run is open (the property fails
// there, and shrinks), and to the end of the run otherwise. At the end of the run the kit waits,
// bounded, for the events still due, then counts lost, recovered, unexpected and duplicated.
import { createHash, randomBytes } from 'node:crypto';
import type { ChangeRole } from './change-evidence.js';
import type { CoverageTally } from './coverage.js';
import type { EventSink, EventSource, ObservedEvent, RefusedDelivery } from './event-source.js';
import { EVENT_RULES, type RuleName } from './rules.js';
import type { Spec } from './spec-reader.js';
import type { WorldRecord } from './world.js';

/**
 * What a call's events must be: `change`, exactly one; `none`, none; `indeterminate`, zero or
 * one (its answer does not say whether it happened); `pending`, a concurrent case's call until
 * its case is checked; `maybe`, a call of a checked case that may have changed its record in
 * another order than the one found (an event for it is held to its case again).
 */
export type EventExpectation = 'change' | 'none' | 'indeterminate' | 'pending' | 'maybe';

/** An event as it arrived: what it said, and when (`performance.now()`). */
export interface Arrival {
  readonly event: ObservedEvent;
  readonly at: number;
}

/** A broken rule of the events, in words. */
export interface EventFinding {
  readonly rule: RuleName;
  readonly message: string;
}

/** One call of the kit's, as its events are held to it. */
export interface LedgerCall {
  /** The request id the event must carry: the answer's `X-Request-Id`, or the one sent. */
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** The answer's status; undefined when none came. */
  readonly status: number | undefined;
  /** The record it names, when it names one of the seed's. */
  readonly record: WorldRecord | undefined;
  /** The operation, when it changes a record. */
  readonly role: ChangeRole | undefined;
  expectation: EventExpectation;
  /** For `none`: what kind of call it is (`a no-op: …`, `refused: 403 …`, `a read`). */
  why: string;
  /** For a change: the record its answer showed, which its event's record must be. */
  answered: unknown;
  /** When it was sent and answered (`performance.now()`). */
  readonly sentAt: number;
  readonly answeredAt: number | undefined;
  /** The property it was sent in (undefined between runs: a look, a replay's setup). */
  readonly property: string | undefined;
  /** Its distinct events, by arrival. */
  readonly events: Arrival[];
  /** For `maybe` and a concurrent `indeterminate`: the case's check, again, with a late event. */
  recheck: (() => EventFinding | undefined) | undefined;
  /** The run it belongs to while the run is open. */
  run: RunScope | undefined;
}

/** One run of a property, while it is open: its calls and what was found of their events. */
interface RunScope {
  readonly property: string;
  readonly calls: LedgerCall[];
  readonly findings: EventFinding[];
}

/** What the end of a run counts of its events (the `events` of a report). */
export interface EventsSummary {
  /** Calls that changed a record, as their answers (or, when they did not say, their events) show. */
  readonly changes: number;
  /** Distinct events received (by id). */
  readonly delivered: number;
  /** Changes an answer acknowledged whose event never came (within the timeout). */
  readonly lost: number;
  /** Calls whose answer did not say whether they happened, and whose event came. */
  readonly recovered: number;
  /** Events for no change: a refused call, a no-op, a read, a request the kit never sent. */
  readonly unexpected: number;
  /** Events beyond the first for one change (under other ids). */
  readonly duplicated: number;
  /** Deliveries of an event already received (its id again). */
  readonly redelivered: number;
  /** Deliveries that failed verification (never counted as events). */
  readonly refused: number;
  /** How long the run waited at its end for the events still due, in ms. */
  readonly waitedMs: number;
  /** The bound of that wait, in ms. */
  readonly timeoutMs: number;
}

/** What the end of a run found of the events: the counts, and each broken rule in words. */
export interface EventsOutcome {
  readonly summary: EventsSummary;
  readonly findings: readonly EventFinding[];
}

/** What the ledger reads besides the events: the spec's webhooks, the tally of checks. */
export interface LedgerContext {
  readonly spec: Spec;
  readonly coverage: CoverageTally;
}

/** The longest a run waits for its own events before it ends; the end of the run waits for the rest. */
const RUN_WAIT_MS = 1000;

/** The event a change of `role` emits. */
export const EVENT_OF_ROLE: Readonly<Record<ChangeRole, string>> = {
  unarchive: 'employee.unarchived',
  archive: 'employee.archived',
  deleteShift: 'shift.deleted',
};

/** The rules in the order a report takes them: the cause before what follows from it. */
const priority = (finding: EventFinding) => {
  const at = (EVENT_RULES as readonly RuleName[]).indexOf(finding.rule);
  return at < 0 ? -1 : at;
};

/** The most telling of `findings` (a signature before the events it kept out, …). */
export const firstFinding = (findings: readonly EventFinding[]): EventFinding | undefined =>
  [...findings].sort((a, b) => priority(a) - priority(b))[0];

/** A record as a message names it: `employee 6a2b… (PAYROLL:10042)`. */
const recordWords = (record: WorldRecord) =>
  `${record.kind} ${record.guid}${record.externalId === undefined ? '' : ` (${record.externalId})`}`;

/** A call as a message names it: `DELETE /labor/v1/… (request wk-…-12) -> 200, in stateful.state-tables`. */
export const callWords = (call: LedgerCall): string =>
  `${call.method} ${call.path} (request ${call.requestId ?? 'unknown'}) -> ${call.status ?? 'no answer'}${call.property === undefined ? '' : `, in ${call.property}`}`;

/** An event as a message names it: `shift.deleted event 3f0c…`. */
export const eventWords = (event: ObservedEvent): string =>
  `${event.type || 'an untyped'} event ${event.id}`;

/** The first field two records differ in, in words; undefined when they are equal. */
function recordDifference(event: unknown, answer: unknown, at = ''): string | undefined {
  if (Object.is(event, answer)) return undefined;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object';
  if (isObject(event) && isObject(answer) && Array.isArray(event) === Array.isArray(answer)) {
    for (const key of new Set([...Object.keys(event), ...Object.keys(answer)])) {
      const found = recordDifference(event[key], answer[key], `${at}/${key}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const shown = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));
  return `${at || 'the record'} is ${shown(event)} in the event, ${shown(answer)} in the answer`;
}

/**
 * What is wrong with `event` as the event of `call`'s change, besides how many came: its type,
 * the record and restaurant it names, and its record against the answer's. Counts the checks.
 */
export function eventMismatch(
  coverage: CoverageTally,
  call: LedgerCall,
  event: ObservedEvent,
): EventFinding | undefined {
  coverage.checked('event-per-change');
  const mismatch = (what: string): EventFinding => ({
    rule: 'event-per-change',
    message: `${eventWords(event)} for ${callWords(call)} ${what}`,
  });
  const expected = call.role === undefined ? undefined : EVENT_OF_ROLE[call.role];
  if (expected !== undefined && event.type !== expected) {
    return mismatch(`is a ${event.type || 'typeless'} event; its change emits ${expected}`);
  }
  const { record } = call;
  if (record !== undefined && event.subject !== record.guid) {
    return mismatch(`names ${event.subject ?? 'no record'}, not ${recordWords(record)}`);
  }
  if (record !== undefined && event.restaurantGuid !== record.restaurant) {
    return mismatch(
      `names restaurant ${event.restaurantGuid ?? 'none'}, not the record's ${record.restaurant}`,
    );
  }
  if (event.record !== undefined && call.answered !== undefined) {
    coverage.checked('event-record');
    const difference = recordDifference(event.record, call.answered);
    if (difference !== undefined) {
      return {
        rule: 'event-record',
        message: `the record in ${eventWords(event)} for ${callWords(call)} is not the one its answer showed: ${difference}`,
      };
    }
  }
  return undefined;
}

/** The rules of events the events of `source` can be held to. */
function eventRulesOf(source: EventSource): RuleName[] {
  return [
    ...(source.carries.signatures ? (['webhook-signature'] as const) : []),
    ...(source.carries.bodies ? (['documented-event'] as const) : []),
    'event-per-change',
    ...(source.carries.bodies ? (['event-record'] as const) : []),
    'event-redelivery',
    'no-event-without-change',
    'indeterminate-event',
    'event-order',
    'events-delivered',
  ];
}

/** Whether `event` names the record `call` changes (any record, for a call that names none). */
const namesRecordOf = (call: LedgerCall, event: ObservedEvent) =>
  call.record === undefined || call.record.guid === event.subject;

/** A body's digest, for comparing a redelivery's body with the first one's, byte for byte. */
const digest = (body: string | undefined) =>
  body === undefined ? undefined : createHash('sha256').update(body).digest('base64');

/** The events of one run of the kit, held to its calls (see the module's comment). */
export class EventLedger {
  readonly #context: LedgerContext;
  readonly #source: EventSource;
  readonly #timeoutMs: number;
  readonly #unsubscribe: () => void;
  #listening = true;
  readonly #requestIdPrefix = `wk-${randomBytes(4).toString('hex')}-`;
  #requestIds = 0;
  /** The calls by request id (several when a generated request id came back more than once). */
  readonly #byRequest = new Map<string, LedgerCall[]>();
  /** The events received, by id: the first body's digest, and the call it was matched to. */
  readonly #byId = new Map<string, { readonly digest: string | undefined }>();
  /** By record: the calls whose events came, for the order of the events. */
  readonly #ordered = new Map<string, LedgerCall[]>();
  /**
   * Events no call entered yet is surely of, by request id: an event can come before the kit has
   * read the answer to its request (an app in process emits it as it answers), and a request id
   * the kit did not make may come back on several calls. Each is taken by the call entered later
   * that names its record, or, at the end of its call's run (of the run, for a request the kit
   * never sent), by the call it fits best.
   */
  readonly #orphans = new Map<string, Arrival[]>();
  /**
   * Calls without an answer whose request id the kit did not make (a generated request's, or
   * none): an event of theirs names a request id the kit never saw, and is taken at the end of the
   * run by the first of them whose record and type it fits.
   */
  readonly #blind: LedgerCall[] = [];
  /** Changes whose event has not come. */
  readonly #due = new Set<LedgerCall>();
  /** Every call that changed a record, or may have (for the counts). */
  readonly #changers = new Set<LedgerCall>();
  readonly #findings: EventFinding[] = [];
  readonly #waiters = new Set<() => void>();
  #run: RunScope | undefined;
  /** Set once a run's wait for its own events ran out: later runs do not wait for theirs. */
  #runWaitsOff = false;
  #delivered = 0;
  #redelivered = 0;
  #refused = 0;
  #unexpected = 0;
  #duplicated = 0;

  /**
   * @param source - where the events come from
   * @param context - the spec (its webhooks) and the run's tally of checks
   * @param timeoutMs - how long the end of the run waits for the events still due
   */
  constructor(source: EventSource, context: LedgerContext, timeoutMs: number) {
    this.#context = context;
    this.#source = source;
    this.#timeoutMs = timeoutMs;
    context.coverage.checksEvents(eventRulesOf(source));
    const sink: EventSink = {
      event: (event) => this.#arrived(event, performance.now()),
      refused: (delivery) => this.#refusedDelivery(delivery),
    };
    this.#unsubscribe = source.subscribe(sink);
  }

  /** Stops taking the source's events (once). */
  close(): void {
    if (this.#listening) this.#unsubscribe();
    this.#listening = false;
  }

  /** The bound of the end of the run's wait, in ms. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** A request id of the kit's own, unique in the run, for a call whose events it must find. */
  nextRequestId(): string {
    return `${this.#requestIdPrefix}${++this.#requestIds}`;
  }

  /** Enters a call; with `expectation` `change`, its event is due. */
  enter(call: Omit<LedgerCall, 'property' | 'events' | 'recheck' | 'run'>): LedgerCall {
    const run = this.#run;
    const entered: LedgerCall = {
      ...call,
      property: run?.property,
      events: [],
      recheck: undefined,
      run,
    };
    run?.calls.push(entered);
    if (call.status === undefined && !call.requestId?.startsWith(this.#requestIdPrefix)) {
      this.#blind.push(entered);
    }
    if (call.requestId !== undefined) {
      const same = this.#byRequest.get(call.requestId);
      if (same === undefined) this.#byRequest.set(call.requestId, [entered]);
      else same.push(entered);
    }
    this.#expect(entered, call.expectation);
    const early = call.requestId === undefined ? undefined : this.#orphans.get(call.requestId);
    if (early !== undefined) {
      const its = early.filter((arrival) => namesRecordOf(entered, arrival.event));
      this.#keepOrphans(
        call.requestId as string,
        early.filter((a) => !its.includes(a)),
      );
      for (const arrival of its) this.#take(entered, arrival);
    }
    return entered;
  }

  #keepOrphans(requestId: string, arrivals: readonly Arrival[]): void {
    if (arrivals.length === 0) this.#orphans.delete(requestId);
    else this.#orphans.set(requestId, [...arrivals]);
  }

  /**
   * The orphans of `requestIds` (every one when undefined) taken by the calls they fit best: a
   * second event of a change, one for a call that changed nothing, or, for no call at all, kept
   * for the end of the run.
   */
  #adoptOrphans(requestIds?: ReadonlySet<string>): void {
    for (const [requestId, arrivals] of [...this.#orphans]) {
      if (requestIds !== undefined && !requestIds.has(requestId)) continue;
      const left: Arrival[] = [];
      for (const arrival of arrivals) {
        const call =
          this.#callOf(arrival.event) ??
          (requestIds === undefined ? this.#blindCallOf(arrival.event) : undefined);
        if (call === undefined) left.push(arrival);
        else this.#take(call, arrival);
      }
      this.#keepOrphans(requestId, left);
    }
  }

  /** The first call without an answer, of a request id the kit did not make, that `event` fits. */
  #blindCallOf(event: ObservedEvent): LedgerCall | undefined {
    return this.#blind.find(
      (call) =>
        call.expectation === 'indeterminate' &&
        call.events.length === 0 &&
        call.record?.guid === event.subject &&
        call.role !== undefined &&
        EVENT_OF_ROLE[call.role] === event.type,
    );
  }

  /** Sets what `call`'s events must be (a concurrent case's call, once its case is checked). */
  settle(
    call: LedgerCall,
    expectation: EventExpectation,
    why = call.why,
    recheck?: () => EventFinding | undefined,
  ): void {
    call.why = why;
    call.recheck = recheck;
    this.#expect(call, expectation);
    if (call.events.length > 0) this.#order(call);
  }

  #expect(call: LedgerCall, expectation: EventExpectation): void {
    call.expectation = expectation;
    if (expectation === 'none') this.#context.coverage.checked('no-event-without-change');
    if (expectation === 'indeterminate') this.#context.coverage.checked('indeterminate-event');
    if (expectation === 'change') {
      this.#changers.add(call);
      if (call.events.length === 0) this.#due.add(call);
    } else this.#due.delete(call);
    // A call that may have changed its record, settled after its event came: it did.
    if ((expectation === 'indeterminate' || expectation === 'maybe') && call.events.length > 0) {
      this.#changers.add(call);
    }
  }

  /** A finding of `call`'s events: its run's while the run is open, the end of the run's after. */
  #found(call: LedgerCall | undefined, finding: EventFinding): void {
    this.#findings.push(finding);
    call?.run?.findings.push(finding);
  }

  #refusedDelivery(delivery: RefusedDelivery): void {
    this.#refused++;
    this.#context.coverage.checked('webhook-signature');
    const calls = delivery.requestId === undefined ? [] : this.#byRequest.get(delivery.requestId);
    const call = calls?.at(-1);
    const about = call === undefined ? '' : ` (its body names ${callWords(call)})`;
    this.#found(call, {
      rule: 'webhook-signature',
      message: `a delivery${delivery.id === undefined ? '' : ` with webhook-id ${delivery.id}`}${about} failed verification: ${delivery.reason}; it is not counted as an event`,
    });
    this.#wake();
  }

  /** Holds a delivery's body and headers to the spec's webhooks section for its type. */
  #documented(event: ObservedEvent): EventFinding | undefined {
    if (event.body === undefined) return undefined;
    const { spec, coverage } = this.#context;
    coverage.checked('documented-event');
    const webhook = spec.webhooks.get(event.type);
    if (webhook === undefined) {
      return {
        rule: 'documented-event',
        message: `${eventWords(event)} has a type the spec's webhooks section does not document: ${JSON.stringify(event.type)}`,
      };
    }
    let body: unknown;
    try {
      body = JSON.parse(event.body);
    } catch {
      return { rule: 'documented-event', message: `${eventWords(event)}'s body is not JSON` };
    }
    const errors = spec.validator.matches(webhook.body, body)
      ? []
      : spec.validator.errors(webhook.body, body, `the ${event.type} event's body`);
    for (const header of webhook.headers) {
      const value = event.headers?.[header.name.toLowerCase()];
      if (value === undefined) errors.push(`it has no ${header.name} header`);
      else if (!spec.validator.matches(header.schema, value)) {
        errors.push(`its ${header.name} header ${JSON.stringify(value)} is not as the spec says`);
      }
    }
    return errors.length === 0
      ? undefined
      : { rule: 'documented-event', message: `${eventWords(event)}: ${errors.join('; ')}` };
  }

  /**
   * The call an event is surely of: its request's latest that names its record, whose events
   * must be some and came not yet.
   */
  #surelyOf(event: ObservedEvent): LedgerCall | undefined {
    const calls = event.requestId === undefined ? undefined : this.#byRequest.get(event.requestId);
    return calls?.findLast(
      (call) =>
        namesRecordOf(call, event) && call.expectation !== 'none' && call.events.length === 0,
    );
  }

  /** The call an event fits best: its request's, the one about the same record first. */
  #callOf(event: ObservedEvent): LedgerCall | undefined {
    const calls = event.requestId === undefined ? undefined : this.#byRequest.get(event.requestId);
    if (calls === undefined) return undefined;
    const rank = (call: LedgerCall) =>
      (call.record === undefined || call.record.guid === event.subject ? 0 : 4) +
      (call.expectation === 'none' ? 2 : call.events.length > 0 ? 3 : 0);
    return [...calls].reverse().sort((a, b) => rank(a) - rank(b))[0];
  }

  #arrived(event: ObservedEvent, at: number): void {
    if (this.#source.carries.signatures) this.#context.coverage.checked('webhook-signature');
    const seen = this.#byId.get(event.id);
    if (seen !== undefined) {
      this.#redelivered++;
      this.#context.coverage.checked('event-redelivery');
      if (seen.digest !== digest(event.body)) {
        this.#found(this.#callOf(event), {
          rule: 'event-redelivery',
          message: `${eventWords(event)} came again with another body: a redelivery keeps its body, byte for byte (${event.body?.slice(0, 200)})`,
        });
      }
      this.#wake();
      return;
    }
    this.#byId.set(event.id, { digest: digest(event.body) });
    this.#delivered++;
    const call = this.#surelyOf(event);
    const documented = this.#documented(event);
    if (documented !== undefined) this.#found(call, documented);
    const arrival: Arrival = { event, at };
    if (call === undefined) {
      const key = event.requestId ?? '';
      this.#orphans.set(key, [...(this.#orphans.get(key) ?? []), arrival]);
    } else this.#take(call, arrival);
    this.#wake();
  }

  /** `arrival` is of `call`: kept with it, and judged. */
  #take(call: LedgerCall, arrival: Arrival): void {
    call.events.push(arrival);
    this.#judge(call, arrival);
  }

  /** Judges an event that came for `call`, as what `call`'s events must be says. */
  #judge(call: LedgerCall, arrival: Arrival): void {
    const { event } = arrival;
    const first = call.events.length === 1;
    switch (call.expectation) {
      case 'pending':
        // Its case judges it once all the case's calls are in.
        return;
      case 'none':
        this.#unexpected++;
        this.#found(call, {
          rule: 'no-event-without-change',
          message: `${eventWords(event)} came for ${callWords(call)}, ${call.why}: a call that changes nothing emits no event`,
        });
        return;
      case 'maybe':
      case 'indeterminate': {
        if (!first) break;
        this.#changers.add(call);
        const wrong = eventMismatch(this.#context.coverage, call, event) ?? call.recheck?.();
        if (wrong !== undefined) this.#found(call, wrong);
        else this.#order(call);
        return;
      }
      case 'change':
        this.#due.delete(call);
        break;
      default: {
        const unknown: never = call.expectation;
        throw new Error(`no expectation ${String(unknown)}`);
      }
    }
    if (!first) {
      this.#duplicated++;
      const ids = call.events.map((a) => a.event.id).join(' and ');
      this.#found(call, {
        rule: call.expectation === 'indeterminate' ? 'indeterminate-event' : 'event-per-change',
        message: `${call.events.length} events came for ${callWords(call)}: ${ids}; ${call.expectation === 'indeterminate' ? 'a call whose answer does not say whether it happened emits zero events or one' : 'one change emits one event'} (a redelivery keeps its id)`,
      });
      return;
    }
    const mismatch = eventMismatch(this.#context.coverage, call, event);
    if (mismatch !== undefined) this.#found(call, mismatch);
    this.#order(call);
  }

  /**
   * Holds the first event of `call` to the order of its record's changes: of two changes one of
   * which was sent after the other was answered (an order in real time), the first one's event
   * must come first. Asked as each call's first event is judged, whichever came first.
   */
  #order(call: LedgerCall): void {
    const { record } = call;
    if (record === undefined) return;
    const others = this.#ordered.get(record.guid) ?? [];
    if (others.length > 0) this.#context.coverage.checked('event-order');
    const precedes = (a: LedgerCall, b: LedgerCall) =>
      a.answeredAt !== undefined && b.sentAt > a.answeredAt;
    const firstAt = (c: LedgerCall) => c.events[0]?.at ?? Number.POSITIVE_INFINITY;
    for (const other of others) {
      const [earlier, later] = precedes(other, call)
        ? [other, call]
        : precedes(call, other)
          ? [call, other]
          : [undefined, undefined];
      if (earlier === undefined || later === undefined || firstAt(earlier) < firstAt(later)) {
        continue;
      }
      const [early, late] = [earlier.events[0]?.event, later.events[0]?.event];
      this.#found(call, {
        rule: 'event-order',
        message: `${late === undefined ? 'the event' : eventWords(late)} of ${callWords(later)} came before ${early === undefined ? 'the event' : eventWords(early)} of ${callWords(earlier)}, an earlier change of ${recordWords(record)} (answered before the other was sent)`,
      });
      break;
    }
    others.push(call);
    this.#ordered.set(record.guid, others);
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /**
   * Resolves true once `done()` holds (asked again as each event or refusal comes), false after
   * `ms`.
   */
  waitUntil(done: () => boolean, ms: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (outcome: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(outcome);
      };
      const check = () => {
        if (done()) finish(true);
      };
      const timer = setTimeout(() => finish(false), ms);
      this.#waiters.add(check);
    });
  }

  /**
   * How long a run may wait for its own events: nothing once a run's wait ran out (its events
   * are then judged as they come, and at the end of the run).
   */
  get runWaitMs(): number {
    return this.#runWaitsOff ? 0 : Math.min(RUN_WAIT_MS, this.#timeoutMs);
  }

  /** A run's wait ran out: later runs do not wait for their events. */
  runWaitRanOut(): void {
    this.#runWaitsOff = true;
  }

  /** Starts a run of `property`: its calls and findings are its own while it is open. */
  startRun(property: string): void {
    this.#run = { property, calls: [], findings: [] };
  }

  /**
   * Ends the run: with `wait`, waits, bounded, for its changes' events; returns the most telling
   * finding of its events so far, if any. Later findings of its calls go to the end of the run.
   */
  async endRun({
    wait = true,
  }: {
    readonly wait?: boolean;
  } = {}): Promise<EventFinding | undefined> {
    const run = this.#run;
    if (run === undefined) return undefined;
    const due = run.calls.filter((call) => this.#due.has(call));
    if (wait && due.length > 0) {
      const all = await this.waitUntil(
        () => run.findings.length > 0 || due.every((call) => !this.#due.has(call)),
        this.runWaitMs,
      );
      if (!all) this.runWaitRanOut();
    }
    this.#adoptOrphans(new Set(run.calls.flatMap((call) => call.requestId ?? [])));
    this.closeRun();
    return firstFinding(run.findings);
  }

  /** Closes the run as it is (its property failed on another rule, or ended). */
  closeRun(): void {
    const run = this.#run;
    if (run === undefined) return;
    for (const call of run.calls) call.run = undefined;
    this.#run = undefined;
  }

  /** The open run's findings so far. */
  get runFindings(): readonly EventFinding[] {
    return this.#run?.findings ?? [];
  }

  /**
   * The end of the run: waits, at most the timeout, for every change's event still due (ending
   * as soon as all have come), then counts them and stops listening.
   */
  async finish(): Promise<EventsOutcome> {
    this.closeRun();
    const started = performance.now();
    await this.waitUntil(() => this.#due.size === 0, this.#timeoutMs);
    const waitedMs = Math.round(performance.now() - started);
    this.close();
    this.#context.coverage.checked('events-delivered', this.#changers.size);
    this.#adoptOrphans();
    for (const arrival of [...this.#orphans.values()].flat()) {
      this.#unexpected++;
      this.#found(undefined, {
        rule: 'no-event-without-change',
        message: `${eventWords(arrival.event)} names request ${arrival.event.requestId ?? '(none)'}, which is none of the kit's requests: an event for no change the kit made`,
      });
    }
    for (const call of this.#due) {
      const type = call.role === undefined ? 'its' : `a ${EVENT_OF_ROLE[call.role]}`;
      this.#found(undefined, {
        rule: 'events-delivered',
        message: `no event came for ${callWords(call)}, which changed ${call.record === undefined ? 'its record' : recordWords(call.record)}: ${type} event was due, and the run waited ${(this.#timeoutMs / 1000).toFixed(1)} s after its end`,
      });
    }
    let changes = 0;
    let recovered = 0;
    for (const call of this.#changers) {
      if (call.expectation === 'change' || call.events.length > 0) changes++;
      if (call.expectation === 'indeterminate' && call.events.length > 0) recovered++;
    }
    return {
      summary: {
        changes,
        delivered: this.#delivered,
        lost: this.#due.size,
        recovered,
        unexpected: this.#unexpected,
        duplicated: this.#duplicated,
        redelivered: this.#redelivered,
        refused: this.#refused,
        waitedMs,
        timeoutMs: this.#timeoutMs,
      },
      findings: [...this.#findings],
    };
  }
}
