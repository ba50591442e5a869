import type { RecordedEvent } from '@workforce-kit/core';
import { anEmployee, aRestaurant, aShift } from '@workforce-kit/core/testing';
import { describe, expect, it } from 'vitest';
import { toEmployeeBody, toShiftBody, toWebhookBody } from '../src/index.js';

const restaurant = aRestaurant();

describe('toWebhookBody', () => {
  it('announces an employee event with the employee as the API shows it, never the passcode', () => {
    const employee = anEmployee(restaurant.guid, { passcode: '4821', swipeCard: 'card-1' });
    const event: RecordedEvent = {
      type: 'EmployeeUnarchived',
      restaurantGuid: restaurant.guid,
      employeeGuid: employee.guid,
      occurredAt: '2026-03-01T16:20:45.123Z',
      eventId: '0d6c5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f',
      requestId: 'req-1',
    };
    const body = toWebhookBody(event, employee);
    expect(body).toEqual({
      type: 'employee.unarchived',
      timestamp: '2026-03-01T16:20:45.123Z',
      data: {
        restaurantGuid: restaurant.guid,
        employeeGuid: employee.guid,
        occurredAt: '2026-03-01T16:20:45.123Z',
        requestId: 'req-1',
        record: toEmployeeBody(employee),
      },
    });
    expect(JSON.stringify(body)).not.toMatch(/4821|passcode|swipeCard|card-1/);
    // The same event gives the same bytes: every retry carries the same body.
    expect(JSON.stringify(toWebhookBody(event, employee))).toBe(JSON.stringify(body));
  });

  it('announces a shift deletion with the shift', () => {
    const shift = aShift(restaurant.guid, {
      deleted: true,
      deletedDate: '2026-03-01T00:00:00.000Z',
    });
    const event: RecordedEvent = {
      type: 'ShiftDeleted',
      restaurantGuid: restaurant.guid,
      shiftGuid: shift.guid,
      occurredAt: '2026-03-01T00:00:00.000Z',
      eventId: '1d6c5e4f-3a2b-4c1d-9e8f-7a6b5c4d3e2f',
      requestId: 'req-2',
    };
    expect(toWebhookBody(event, shift)).toEqual({
      type: 'shift.deleted',
      timestamp: '2026-03-01T00:00:00.000Z',
      data: {
        restaurantGuid: restaurant.guid,
        shiftGuid: shift.guid,
        occurredAt: '2026-03-01T00:00:00.000Z',
        requestId: 'req-2',
        record: toShiftBody(shift),
      },
    });
  });
});
