// The ledger that holds a run's events to its calls, driven directly (no HTTP): calls entered as
// the kit's answers say, events handed to its sink as a source would. Each rule of the events, and
// the counts the end of a run keeps (lost, recovered, unexpected, duplicated), on the smallest
// case that shows it; and the cases a live deployment makes that must not be findings (an event
// before its call's answer is read, a redelivery).
import { openapiDocument } from '@workforce-kit/types';
import { describe, expect, it } from 'vitest';
import type { ChangeRole } from '../src/change-evidence.js';
import { CoverageTally } from '../src/coverage.js';
import {
  type EventExpectation,
  EventLedger,
  type EventsOutcome,
  type LedgerCall,
} from '../src/event-ledger.js';
import type { EventSink, EventSource, ObservedEvent } from '../src/event-source.js';
import { readSpec } from '../src/spec-reader.js';
import { stateTableOperations } from '../src/state-table-operations.js';
import type { World, WorldRecord } from '../src/world.js';

const spec = readSpec();
const RESTAURANT = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const employee: WorldRecord = {
  kind: 'employee',
  restaurant: RESTAURANT,
  guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
  externalId: 'PAYROLL:10042',
  fields: {},
  seedDeleted: false,
  seedDates: {},
};
const world: World = {
  restaurants: [],
  employees: [employee],
  shifts: [],
  byGuid: new Map([[employee.guid, employee]]),
};

/** A source the test hands events to, as a webhook receiver (bodies, signatures) or not. */
function testSource(bodies = false): EventSource & { sink: () => EventSink } {
  let sink: EventSink | undefined;
  return {
    carries: { signatures: bodies, bodies },
    subscribe: (given) => {
      sink = given;
      return () => {
        sink = undefined;
      };
    },
    sink: () => {
      if (sink === undefined) throw new Error('nothing subscribed');
      return sink;
    },
  };
}

function ledgerOf(source: EventSource, timeoutMs = 200) {
  const coverage = new CoverageTally(world, stateTableOperations(spec));
  return { ledger: new EventLedger(source, { spec, coverage }, timeoutMs), coverage };
}

let clock = 0;
/** Enters a call of `role` on the employee, sent and answered in turn. */
function enter(
  ledger: EventLedger,
  requestId: string,
  expectation: EventExpectation,
  { role = 'archive' as ChangeRole, answered = undefined as unknown } = {},
): LedgerCall {
  const sentAt = ++clock;
  return ledger.enter({
    requestId,
    method: 'DELETE',
    path: `/labor/v1/employees/${employee.guid}`,
    status: 200,
    record: employee,
    role,
    expectation,
    why: expectation === 'none' ? 'a no-op: the employee was archived already' : '',
    answered,
    sentAt,
    answeredAt: ++clock,
  });
}

const archived = (id: string, requestId: string): ObservedEvent => ({
  id,
  type: 'employee.archived',
  restaurantGuid: RESTAURANT,
  subject: employee.guid,
  requestId,
});

const rulesOf = (outcome: EventsOutcome) => outcome.findings.map((f) => f.rule);

describe('the ledger of a run’s events', () => {
  it('counts a change with its one event, and ends as soon as every due event came', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source, 10_000);
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change');
    enter(ledger, 'r2', 'none');
    setTimeout(() => source.sink().event(archived('e1', 'r1')), 20);
    const started = performance.now();
    expect(await ledger.endRun()).toBeUndefined();
    const outcome = await ledger.finish();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(outcome.findings).toEqual([]);
    expect(outcome.summary).toMatchObject({
      changes: 1,
      delivered: 1,
      lost: 0,
      recovered: 0,
      unexpected: 0,
      duplicated: 0,
    });
  });

  it('gives an event of a request id the kit did not make to a call without an answer it fits', async () => {
    // A generated request without an X-Request-Id of the kit's, hung up on after its change: the
    // deployment named the request itself, and no answer brought the name back.
    const source = testSource();
    const { ledger } = ledgerOf(source);
    ledger.startRun('stateless.archiveEmployee.valid-requests');
    ledger.enter({
      requestId: undefined,
      method: 'PUT',
      path: `/labor/v1/employees/${employee.guid}/archive`,
      status: undefined,
      record: employee,
      role: 'archive',
      expectation: 'indeterminate',
      why: '',
      answered: undefined,
      sentAt: ++clock,
      answeredAt: undefined,
    });
    source.sink().event(archived('e1', 'server-made-1'));
    await ledger.endRun();
    const outcome = await ledger.finish();
    expect(outcome.findings).toEqual([]);
    expect(outcome.summary).toMatchObject({ changes: 1, recovered: 1, unexpected: 0 });
  });

  it('takes an event that came before its call was entered (an app emits it as it answers)', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    ledger.startRun('stateful.state-tables');
    source.sink().event(archived('e1', 'r1'));
    enter(ledger, 'r1', 'change');
    expect(await ledger.endRun()).toBeUndefined();
    expect((await ledger.finish()).summary).toMatchObject({ delivered: 1, lost: 0, unexpected: 0 });
  });

  it('takes an event for the call entered after it whose record it names, though an earlier call had its request id', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    // A generated X-Request-Id the kit sent twice: first with a refused unarchive of another
    // employee, then with an archive whose event comes before its answer is read.
    ledger.startRun('stateless.unarchiveEmployee.valid-requests');
    ledger.enter({
      requestId: 'key',
      method: 'PUT',
      path: '/labor/v1/employees/1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e/unarchive',
      status: 400,
      record: { ...employee, guid: '1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e' },
      role: 'unarchive',
      expectation: 'none',
      why: 'refused with 400 EMPLOYEE_NOT_ARCHIVED',
      answered: undefined,
      sentAt: ++clock,
      answeredAt: ++clock,
    });
    expect(await ledger.endRun()).toBeUndefined();
    ledger.startRun('stateless.archiveEmployee.valid-requests');
    source.sink().event(archived('e1', 'key'));
    enter(ledger, 'key', 'change');
    expect(await ledger.endRun()).toBeUndefined();
    const outcome = await ledger.finish();
    expect(outcome.findings).toEqual([]);
    expect(outcome.summary).toMatchObject({ delivered: 1, lost: 0, unexpected: 0 });
  });

  it('fails the run of a call that changed nothing and emitted an event, naming the call', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    ledger.startRun('stateless.archiveEmployee.valid-requests');
    enter(ledger, 'r1', 'none');
    source.sink().event(archived('e1', 'r1'));
    const found = await ledger.endRun();
    expect(found?.rule).toBe('no-event-without-change');
    expect(found?.message).toContain('a no-op: the employee was archived already');
    expect(found?.message).toContain('in stateless.archiveEmployee.valid-requests');
    expect((await ledger.finish()).summary.unexpected).toBe(1);
  });

  it('counts two events of one change under two ids as duplicated', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change');
    source.sink().event(archived('e1', 'r1'));
    source.sink().event(archived('e2', 'r1'));
    expect((await ledger.endRun())?.rule).toBe('event-per-change');
    expect((await ledger.finish()).summary).toMatchObject({ delivered: 2, duplicated: 1 });
  });

  it('takes a redelivery (the same id and body) as no new event, and fails one whose body changed', async () => {
    const source = testSource(true);
    const { ledger } = ledgerOf(source);
    const { examples } = openapiDocument.components as unknown as {
      examples: Record<string, { value: { data: { record: object } & Record<string, unknown> } }>;
    };
    const example = examples.EmployeeArchivedWebhookExample?.value as {
      data: { record: object } & Record<string, unknown>;
    };
    const body = JSON.stringify({ ...example, data: { ...example.data, requestId: 'r1' } });
    const headers = {
      'webhook-id': '0d6c5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f',
      'webhook-timestamp': '1772382045',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    };
    const event = {
      ...archived(headers['webhook-id'], 'r1'),
      record: example.data.record,
      body,
      headers,
    };
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change', { answered: example.data.record });
    source.sink().event(event);
    source.sink().event(event);
    expect(await ledger.endRun()).toBeUndefined();
    ledger.startRun('stateful.state-tables');
    source.sink().event({ ...event, body: body.replace('Maria', 'Mario') });
    const outcome = await ledger.finish();
    expect(rulesOf(outcome)).toEqual(['event-redelivery']);
    expect(outcome.summary).toMatchObject({ delivered: 1, redelivered: 2, duplicated: 0 });
  });

  it("holds an event's record to the answer's, field by field", async () => {
    const source = testSource(true);
    const { ledger } = ledgerOf(source);
    const answer = { guid: employee.guid, deleted: true, modifiedDate: '2026-03-01T10:00:00.000Z' };
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change', { answered: answer });
    source.sink().event({
      ...archived('e1', 'r1'),
      record: { ...answer, modifiedDate: '2026-03-01T10:00:00.001Z' },
    });
    const found = await ledger.endRun();
    expect(found?.rule).toBe('event-record');
    expect(found?.message).toContain(
      '/modifiedDate is "2026-03-01T10:00:00.001Z" in the event, "2026-03-01T10:00:00.000Z" in the answer',
    );
  });

  it('holds the events of one record to the order of its changes, whichever is judged first', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change');
    // The later change's event comes first, before its call is even entered.
    source.sink().event({ ...archived('e2', 'r2'), type: 'employee.unarchived' });
    source.sink().event(archived('e1', 'r1'));
    enter(ledger, 'r2', 'change', { role: 'unarchive' });
    const found = await ledger.endRun();
    expect(found?.rule).toBe('event-order');
    expect(found?.message).toMatch(
      /employee.unarchived event e2 of .* came before employee.archived event e1 of/,
    );
  });

  it('allows a call whose answer does not say one event or none, and counts it recovered', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    ledger.startRun('concurrent.races');
    enter(ledger, 'r1', 'indeterminate');
    enter(ledger, 'r2', 'indeterminate');
    enter(ledger, 'r3', 'indeterminate');
    source.sink().event(archived('e1', 'r1'));
    source.sink().event(archived('e3', 'r3'));
    source.sink().event(archived('e4', 'r3'));
    expect((await ledger.endRun())?.rule).toBe('indeterminate-event');
    expect((await ledger.finish()).summary).toMatchObject({ changes: 2, recovered: 2, lost: 0 });
  });

  it('counts a change whose event never came lost, after waiting out the timeout', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source, 150);
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change');
    expect(await ledger.endRun()).toBeUndefined();
    const outcome = await ledger.finish();
    expect(rulesOf(outcome)).toEqual(['events-delivered']);
    expect(outcome.summary).toMatchObject({ lost: 1, waitedMs: expect.any(Number) });
    expect(outcome.summary.waitedMs).toBeGreaterThanOrEqual(140);
  });

  it('counts an event of a request the kit never sent unexpected, at the end of the run', async () => {
    const source = testSource();
    const { ledger } = ledgerOf(source);
    source.sink().event(archived('e1', 'not-the-kits'));
    const outcome = await ledger.finish();
    expect(rulesOf(outcome)).toEqual(['no-event-without-change']);
    expect(outcome.summary.unexpected).toBe(1);
  });

  it('fails the run of the call a refused delivery names, never counting it as an event', async () => {
    const source = testSource(true);
    const { ledger, coverage } = ledgerOf(source);
    ledger.startRun('stateful.state-tables');
    enter(ledger, 'r1', 'change');
    source.sink().refused({ reason: 'No matching signature found', id: 'e1', requestId: 'r1' });
    const found = await ledger.endRun();
    expect(found?.rule).toBe('webhook-signature');
    expect(found?.message).toContain('No matching signature found');
    const outcome = await ledger.finish();
    // The rule that says why comes first; the event it kept out is lost.
    expect(rulesOf(outcome)).toEqual(['webhook-signature', 'events-delivered']);
    expect(outcome.summary).toMatchObject({ refused: 1, delivered: 0, lost: 1 });
    expect(coverage.coverage(spec).rules['webhook-signature']).toBe(1);
  });
});
