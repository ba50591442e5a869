import {
  type components,
  type DeleteShiftData,
  deleteShift,
  type Employee,
  type GetRestaurantData,
  getRestaurant,
  type operations,
  type Problem,
  type ProblemCode,
  type RestaurantInfo,
  type Shift,
  unarchiveEmployee,
} from '@workforce-kit/types';
import { describe, expectTypeOf, it } from 'vitest';

const restaurant = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';

describe('the generated SDK', () => {
  it('requires the restaurant context header on deleteShift', () => {
    expectTypeOf<DeleteShiftData['headers']>().toHaveProperty('Platform-Restaurant-External-ID');
    expectTypeOf<
      DeleteShiftData['headers']['Platform-Restaurant-External-ID']
    >().toEqualTypeOf<string>();
    // @ts-expect-error the Platform-Restaurant-External-ID header is required
    void deleteShift({ path: { shiftId: 'SCHEDULER:1' }, headers: {} });
    // @ts-expect-error the headers are required
    void deleteShift({ path: { shiftId: 'SCHEDULER:1' } });
    void deleteShift({
      path: { shiftId: 'SCHEDULER:1' },
      headers: { 'Platform-Restaurant-External-ID': restaurant },
    });
  });

  it('requires the employee id and the restaurant header on unarchiveEmployee', () => {
    // @ts-expect-error the path is required
    void unarchiveEmployee({ headers: { 'Platform-Restaurant-External-ID': restaurant } });
    void unarchiveEmployee({
      path: { employeeId: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d' },
      headers: { 'Platform-Restaurant-External-ID': restaurant },
      body: {},
    });
  });

  it('types includeArchived as an optional boolean', () => {
    expectTypeOf<NonNullable<GetRestaurantData['query']>['includeArchived']>().toEqualTypeOf<
      boolean | undefined
    >();
    void getRestaurant({
      path: { restaurantGUID: restaurant },
      query: { includeArchived: true },
      headers: { 'Platform-Restaurant-External-ID': restaurant },
    });
  });

  it('returns the success body typed by the response schema', async () => {
    const { data } = await deleteShift({
      path: { shiftId: 'SCHEDULER:1' },
      headers: { 'Platform-Restaurant-External-ID': restaurant },
    });
    expectTypeOf(data).toEqualTypeOf<Shift | undefined>();
  });
});

describe('the schema types', () => {
  it('type Employee fields as the spec says', () => {
    expectTypeOf<Employee['deleted']>().toEqualTypeOf<boolean>();
    expectTypeOf<Employee['guid']>().toEqualTypeOf<string>();
    expectTypeOf<Employee['deletedDate']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Employee['entityType']>().toEqualTypeOf<'RestaurantUser'>();
    expectTypeOf<NonNullable<Employee['wageOverrides']>[number]['wage']>().toEqualTypeOf<number>();
  });

  it('types Shift and RestaurantInfo', () => {
    expectTypeOf<Shift['deleted']>().toEqualTypeOf<boolean>();
    expectTypeOf<RestaurantInfo['general']['archived']>().toEqualTypeOf<boolean>();
    expectTypeOf<
      NonNullable<NonNullable<RestaurantInfo['schedules']>['weekSchedule']>['monday']
    >().toEqualTypeOf<string | undefined>();
  });

  it('lists the problem codes', () => {
    expectTypeOf<Problem['code']>().toEqualTypeOf<ProblemCode>();
    expectTypeOf<'EMPLOYEE_NOT_ARCHIVED'>().toExtend<ProblemCode>();
    expectTypeOf<'NO_SUCH_CODE'>().not.toExtend<ProblemCode>();
  });

  it('agrees between openapi-typescript and the SDK', () => {
    expectTypeOf<components['schemas']['Employee']['deleted']>().toEqualTypeOf<
      Employee['deleted']
    >();
    expectTypeOf<
      operations['deleteShift']['parameters']['header']['Platform-Restaurant-External-ID']
    >().toEqualTypeOf<string>();
  });
});
