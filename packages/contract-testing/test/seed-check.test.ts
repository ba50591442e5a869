// A target whose records are not as the seed says stops the run with TargetNotSeeded, naming the
// record and what differs, and no property fails: an employee the seed has archived, unarchived
// first (as with curl); a target the kit ran against before; a shift deleted an hour before the
// run, seen first by whichever group deletes it; a target whose reset does not put the seed back.
// A live target left as the seed says passes. The targets are the reference router over the
// memory store, in process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ContractOptions,
  checkApiContract,
  type PropertyGroup,
  type PropertyResult,
  TargetNotSeeded,
} from '@workforce-kit/contract-testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createTokenSource } from '../src/token-source.js';
import { AUTH, demoSeedJson, type RouterTarget, routerTarget } from './support/router-target.js';

const RESTAURANT = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = { guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', externalId: 'PAYROLL:10042' };
const SHIFT = {
  guid: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
  externalId: 'SCHEDULER:shift-20260301-0042',
};
const tokens = createTokenSource(AUTH, []);

const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

/** Serves `target` on a loopback port, as a running server: its base URL. */
async function serve(target: RouterTarget): Promise<string> {
  const server = createServer(target.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A change sent before the kit's run, as a user does with curl. */
async function changeFirst(url: string, method: 'PUT' | 'DELETE', path: string): Promise<void> {
  const token = await tokens.token({
    scopes: ['labor.employees:write', 'labor.shifts:write'],
    restaurants: '*',
  });
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      'Platform-Restaurant-External-ID': RESTAURANT,
      ...(method === 'PUT' ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(method === 'PUT' ? { body: '{}' } : {}),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** A run of the kit that stops: the TargetNotSeeded it throws, and the properties before it. */
async function stoppedRun(
  options: Omit<ContractOptions, 'seed' | 'auth' | 'onResult'>,
): Promise<{ readonly stop: TargetNotSeeded; readonly results: PropertyResult[] }> {
  const results: PropertyResult[] = [];
  const run = checkApiContract({
    ...options,
    seed: demoSeedJson,
    auth: AUTH,
    onResult: (result) => results.push(result),
  });
  const stop = await run.then(
    (report) => {
      throw new Error(`the run did not stop: ${report.passed} passed, ${report.failed} failed`);
    },
    (error: unknown) => error,
  );
  if (!(stop instanceof TargetNotSeeded)) throw stop;
  // No contract violation: every property that ran before the stop held.
  expect(results.filter((r) => r.status === 'failed')).toEqual([]);
  return { stop, results };
}

it('stops a run against a target whose archived employee was unarchived first, naming her', async () => {
  const url = await serve(await routerTarget());
  await changeFirst(url, 'PUT', `/labor/v1/employees/${MARIA.guid}/unarchive`);
  const { stop, results } = await stoppedRun({
    target: url,
    only: ['stateful'],
    runs: 20,
    rngSeed: 1,
  });
  expect(stop.record).toEqual({ kind: 'employee', ...MARIA });
  expect(stop.message).toMatch(
    new RegExp(
      `^the target's employee ${MARIA.guid} \\(PAYROLL:10042\\) is not archived as the seed says \\(modifiedDate 2026-02-27T22:15:00.000Z, deletedDate 2026-02-27T22:15:00.000Z\\): archiving it, which changes nothing on an archived employee, answered 200 deleted true, modifiedDate .+: was the target freshly seeded\\?$`,
    ),
  );
  // The property it stopped in has no result: no broken rule is reported.
  expect(results).toEqual([]);
});

it('passes a live target left as the seed says, and stops the next run against it', async () => {
  const target = await routerTarget();
  // The sequential groups: what the first run changes follows from the RNG seed alone.
  const options = {
    target: target.handler,
    only: ['stateless', 'stateful'] as const,
    runs: 10,
    rngSeed: 3,
  };
  const first = await checkApiContract({ ...options, seed: demoSeedJson, auth: AUTH });
  expect(first.ok).toBe(true);
  expect(first.passed).toBe(first.results.length);
  const { stop } = await stoppedRun(options);
  expect(stop.message).toMatch(/ is not (archived|active)[ ,].*: was the target freshly seeded\?$/);
});

describe('a shift the seed has active, deleted an hour before the run', () => {
  // Seen first by the group that deletes it: its dates are older than the kit's first request.
  it.each<PropertyGroup>(['stateless', 'stateful', 'isolation', 'concurrent'])(
    'stops a run of the %s group at the first answer that shows it',
    async (group) => {
      let offsetMs = -3_600_000;
      const clock = { now: () => new Date(Date.now() + offsetMs) };
      const url = await serve(await routerTarget({}, demoSeedJson, { clock }));
      await changeFirst(url, 'DELETE', `/labor/v1/shifts/${SHIFT.guid}`);
      offsetMs = 0;
      const { stop } = await stoppedRun({ target: url, only: [group], runs: 20, rngSeed: 5 });
      expect(stop.record).toEqual({ kind: 'shift', ...SHIFT });
      expect(stop.message).toMatch(
        new RegExp(
          `^the target's shift ${SHIFT.guid} \\(${SHIFT.externalId}\\) is not active, as the seed says: it is deleted \\(modifiedDate (.+), deletedDate \\1\\), before the kit's first request \\(sent at or after .+ by the target's clock\\): was the target freshly seeded\\?$`,
        ),
      );
    },
  );
});

it('stops when the target’s reset does not put the seed back, after the first reset that follows a change', async () => {
  const target = await routerTarget();
  const { stop } = await stoppedRun({
    target: { handler: target.handler, reset: () => {} },
    only: ['stateful'],
    runs: 5,
    rngSeed: 2,
  });
  expect(stop.message).toMatch(/: does the target’s reset \(or factory\) put the seed back\?$/);
});
