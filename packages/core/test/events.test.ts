import { eventSubject, type Guid, storageUnavailable } from '@workforce-kit/core';
import { newGuid } from '@workforce-kit/core/testing';
import { describe, expect, it } from 'vitest';

const restaurantGuid = newGuid();
const subject: Guid = newGuid();
const occurredAt = '2026-03-01T12:00:00.000Z';

describe('eventSubject', () => {
  it.each([
    { type: 'EmployeeArchived', restaurantGuid, employeeGuid: subject, occurredAt },
    { type: 'EmployeeUnarchived', restaurantGuid, employeeGuid: subject, occurredAt },
    { type: 'ShiftDeleted', restaurantGuid, shiftGuid: subject, occurredAt },
  ] as const)('names the record of $type', (event) => {
    expect(eventSubject(event)).toBe(subject);
  });
});

describe('storageUnavailable', () => {
  it('carries its cause only when there is one', () => {
    const cause = new Error('ECONNREFUSED');
    expect(storageUnavailable('ping', cause)).toEqual({
      type: 'StorageUnavailable',
      operation: 'ping',
      cause,
    });
    expect('cause' in storageUnavailable('ping')).toBe(false);
  });
});
