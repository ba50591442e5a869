import { createMemoryStore, parseGuid, parseRecordId } from '@workforce-kit/core';
import {
  anArchivedEmployee,
  aRestaurant,
  aShift,
  externalIdArb,
  guidInputArb,
  malformedShiftIdArb,
  seedRecords,
} from '@workforce-kit/core/testing';
import { openapiDocument } from '@workforce-kit/types';
import fc from 'fast-check';
import { okAsync } from 'neverthrow';
import { pino } from 'pino';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createApi } from '../src/api.js';
import type { AccessTokenVerifier } from '../src/auth/access-token.js';
import { compileIdentifierInputs, PathInputs } from '../src/identifier-inputs.js';
import { type ApiOperation, readOperations } from '../src/operations.js';
import type { ApiAnswer } from '../src/pipeline.js';
import { IDENTIFIER_MESSAGES } from '../src/problems.js';
import { requestSchemas } from '../src/request-validation.js';

// The edge's calls of the core's identifier parsers, counted: each input is to be parsed once.
const parsed = vi.hoisted(() => ({ guid: [] as string[], recordId: [] as string[], isGuid: 0 }));
vi.mock('@workforce-kit/core', async (importOriginal) => {
  const core = await importOriginal<typeof import('@workforce-kit/core')>();
  return {
    ...core,
    parseGuid: (value: string, field: string) => {
      parsed.guid.push(field);
      return core.parseGuid(value, field);
    },
    parseRecordId: (value: string, field: string) => {
      parsed.recordId.push(field);
      return core.parseRecordId(value, field);
    },
    isGuid: (value: string) => {
      parsed.isGuid += 1;
      return core.isGuid(value);
    },
  };
});

const HEADER = 'platform-restaurant-external-id';
const operations = readOperations(openapiDocument);

function operation(id: ApiOperation['id']): ApiOperation {
  const found = operations.find((op) => op.id === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
}

describe('the identifier inputs of each operation, compiled from the spec', () => {
  const shift = compileIdentifierInputs(operation('deleteShift'));
  const unarchive = compileIdentifierInputs(operation('unarchiveEmployee'));

  it('parse a RecordIdInput with parseRecordId and a GuidInput with parseGuid', () => {
    fc.assert(
      fc.property(fc.oneof(guidInputArb, externalIdArb), guidInputArb, (recordId, guid) => {
        const params = { shiftId: recordId };
        const inputs = new PathInputs(params, shift.path(params)._unsafeUnwrap());
        expect(inputs.recordId('shiftId')).toEqual(
          parseRecordId(recordId, 'shiftId')._unsafeUnwrap(),
        );
        const employeeParams = { employeeId: guid };
        const employee = new PathInputs(
          employeeParams,
          unarchive.path(employeeParams)._unsafeUnwrap(),
        );
        expect(employee.guid('employeeId')).toBe(parseGuid(guid, 'employeeId')._unsafeUnwrap());
      }),
    );
  });

  it('name a malformed one at /params/<name>, saying what it accepts', () => {
    fc.assert(
      fc.property(malformedShiftIdArb, (value) => {
        expect(shift.path({ shiftId: value })._unsafeUnwrapErr()).toEqual([
          {
            path: '/params/shiftId',
            message: IDENTIFIER_MESSAGES['guid-or-external-id'],
            missing: false,
          },
        ]);
      }),
    );
    expect(unarchive.path({ employeeId: 'SCHEDULER:1' })._unsafeUnwrapErr()).toEqual([
      { path: '/params/employeeId', message: IDENTIFIER_MESSAGES.guid, missing: false },
    ]);
  });

  it('take the restaurant authorization parsed, or name its header: missing or malformed', () => {
    const restaurant = parseGuid('B7F1C3A2-4E5D-4F60-8A9B-0C1D2E3F4A5B', HEADER)._unsafeUnwrap();
    expect(shift.restaurant(restaurant, { [HEADER]: 'anything' })._unsafeUnwrap()).toBe(restaurant);
    expect(shift.restaurant(undefined, {})._unsafeUnwrapErr()).toEqual({
      path: `/headers/${HEADER}`,
      message: 'is required',
      missing: true,
    });
    expect(shift.restaurant(undefined, { [HEADER]: 'downtown' })._unsafeUnwrapErr()).toEqual({
      path: `/headers/${HEADER}`,
      message: IDENTIFIER_MESSAGES.guid,
      missing: false,
    });
  });

  it('are left out of the schemas ajv checks', () => {
    for (const op of operations) {
      const schemas = requestSchemas(op);
      expect(Object.keys(schemas.headers.properties as object)).not.toContain(HEADER);
      expect(Object.keys(schemas.params.properties as object)).not.toContain('shiftId');
      expect(Object.keys(schemas.params.properties as object)).not.toContain('employeeId');
    }
    expect(
      Object.keys(requestSchemas(operation('getRestaurant')).params.properties as object),
    ).toEqual(['restaurantGUID']);
  });

  it('refuse, at start-up, a spec whose identifier inputs the edge does not parse', () => {
    const op = operation('deleteShift');
    const withoutHeader = op.parameters.filter((p) => p.in !== 'header');
    expect(() => compileIdentifierInputs({ ...op, parameters: withoutHeader })).toThrow(
      'deleteShift must take the restaurant header, a required GuidInput',
    );
    const inQuery = {
      name: 'employeeId',
      in: 'query',
      required: false,
      schema: { $ref: '#/components/schemas/GuidInput' },
    } as const;
    expect(() =>
      compileIdentifierInputs({ ...op, parameters: [...op.parameters, inQuery] }),
    ).toThrow('the identifier input employeeId is not parsed here');
  });

  it('give the runner only what the spec parsed (another parameter is a defect: it throws)', () => {
    const inputs = new PathInputs(
      { shiftId: 'SCHEDULER:1' },
      { shiftId: parseRecordId('SCHEDULER:1', 'shiftId')._unsafeUnwrap() },
    );
    expect(inputs.text('shiftId')).toBe('SCHEDULER:1');
    expect(() => inputs.guid('shiftId')).toThrow('shiftId is not a GuidInput');
    expect(() => inputs.recordId('employeeId')).toThrow('employeeId is not a RecordIdInput');
    expect(() => inputs.text('restaurantGUID')).toThrow('no path parameter restaurantGUID');
  });
});

describe('a request through the pipeline', () => {
  const restaurant = aRestaurant();
  const employee = anArchivedEmployee(restaurant.guid);
  const shift = aShift(restaurant.guid);
  const everything: AccessTokenVerifier = {
    verify: () =>
      okAsync({ scopes: new Set(operations.map((op) => op.scope)), restaurants: 'all' }),
  };
  const api = createApi({
    store: createMemoryStore(
      seedRecords({ restaurants: [restaurant], employees: [employee], shifts: [shift] }),
    ),
    auth: everything,
    rateLimit: false,
    logger: pino({ level: 'silent' }),
  });

  async function send(
    method: string,
    url: string,
    context: string | undefined,
    body: unknown = undefined,
  ): Promise<ApiAnswer> {
    const headers = {
      authorization: 'Bearer any',
      'content-type': 'application/json',
      ...(context === undefined ? {} : { [HEADER]: context }),
    };
    const answer = api.handle({
      method,
      url,
      headers,
      address: '127.0.0.1',
      body: { parsed: body },
    });
    if (answer === undefined) throw new Error(`${url} is not the API's`);
    return answer;
  }

  beforeEach(() => {
    parsed.guid.length = 0;
    parsed.recordId.length = 0;
    parsed.isGuid = 0;
  });

  it('parses the restaurant header and each path identifier exactly once', async () => {
    const context = restaurant.guid.toUpperCase();
    const unarchived = await send(
      'PUT',
      `/labor/v1/employees/${employee.guid}/unarchive`,
      context,
      {},
    );
    expect(unarchived.status).toBe(200);
    expect(parsed).toEqual({ guid: [HEADER, '/params/employeeId'], recordId: [], isGuid: 0 });

    parsed.guid.length = 0;
    const deleted = await send('DELETE', `/labor/v1/shifts/${shift.guid}`, context);
    expect(deleted.status).toBe(200);
    expect(parsed).toEqual({ guid: [HEADER], recordId: ['/params/shiftId'], isGuid: 0 });

    parsed.guid.length = 0;
    parsed.recordId.length = 0;
    const found = await send('GET', `/restaurants/v1/restaurants/${restaurant.guid}`, context);
    expect(found.status).toBe(200);
    expect(parsed).toEqual({ guid: [HEADER], recordId: [], isGuid: 0 });
  });

  it('names every invalid input at once, in request order: path, headers, query, body', async () => {
    const shiftAnswer = await send('DELETE', '/labor/v1/shifts/shift%2042', undefined);
    expect(JSON.parse(shiftAnswer.body).errors).toEqual([
      { path: '/params/shiftId', message: IDENTIFIER_MESSAGES['guid-or-external-id'] },
      { path: `/headers/${HEADER}`, message: 'is required' },
    ]);
    const restaurantAnswer = await send(
      'GET',
      `/restaurants/v1/restaurants/${restaurant.guid}?includeArchived=maybe`,
      'downtown',
    );
    expect(JSON.parse(restaurantAnswer.body).errors).toEqual([
      { path: `/headers/${HEADER}`, message: IDENTIFIER_MESSAGES.guid },
      { path: '/query/includeArchived', message: 'must be boolean' },
    ]);
  });
});
