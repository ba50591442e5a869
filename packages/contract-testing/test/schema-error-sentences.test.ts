// Schema errors said in the domain's words: the record the body's schema names, its state (the
// title of the `if` branch it meets), the field and what is wrong with it, every word read from
// the spec or from ajv's error; ajv's own words kept after each sentence.
import { openapiDocument } from '@workforce-kit/types';
import { describe, expect, it } from 'vitest';
import { createSchemaValidator } from '../src/schema-validator.js';

const validator = createSchemaValidator(openapiDocument);
const EMPLOYEE = { $ref: '#/components/schemas/Employee' };
const SHIFT = { $ref: '#/components/schemas/Shift' };
const AT = '2026-03-01T17:00:00.000Z';

const employee = (fields: Record<string, unknown> = {}) => ({
  guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
  entityType: 'RestaurantUser',
  createdDate: AT,
  modifiedDate: AT,
  deleted: false,
  ...fields,
});

/** The sentences without the ajv errors each ends with. */
const said = (errors: readonly string[]) => errors.map((e) => e.replace(/ \(ajv: .*\)$/, ''));

describe("an employee's and a shift's states", () => {
  it('names an archived employee without deletedDate so', () => {
    const errors = validator.errors(EMPLOYEE, employee({ deleted: true }));
    expect(errors).toEqual([
      'an archived employee\'s `deletedDate` is missing (ajv: /deleted must be equal to constant: false; / must match "else" schema)',
    ]);
  });

  it('names an active employee with a deletedDate so', () => {
    expect(said(validator.errors(EMPLOYEE, employee({ deletedDate: AT })))).toEqual([
      'an active employee has `deletedDate`, which only an archived employee has',
    ]);
  });

  it('names a deleted shift without deletedDate so', () => {
    const shift = { ...employee({ deleted: true }), entityType: 'Shift' };
    expect(said(validator.errors(SHIFT, shift))).toEqual([
      "a deleted shift's `deletedDate` is missing",
    ]);
  });

  it('says the record in its state in every sentence, a field outside the spec included', () => {
    const body = employee({ deleted: true, deletedDate: AT, passcode: '4821' });
    delete (body as Record<string, unknown>).modifiedDate;
    expect(said(validator.errors(EMPLOYEE, body)).sort()).toEqual([
      'an archived employee has `passcode`, which the spec does not define',
      "an archived employee's `modifiedDate` is missing",
    ]);
  });
});

describe('fields', () => {
  it('says a constant, a type, a format and a pattern by what the spec says of them', () => {
    const body = employee({
      entityType: 'Employee',
      firstName: 7,
      email: 'not an address',
      modifiedDate: '2026-03-01',
    });
    expect(said(validator.errors(EMPLOYEE, body)).sort()).toEqual([
      'an active employee\'s `email` ("not an address") is not an email address',
      'an active employee\'s `entityType` is "Employee", where the spec has "RestaurantUser"',
      "an active employee's `firstName` is an integer, where the spec has a string",
      'an active employee\'s `modifiedDate` ("2026-03-01") is not an ISO 8601 date-time in UTC with milliseconds',
    ]);
  });

  it('says a nested field by its path, once though it breaks both pattern and format', () => {
    const body = employee({ jobReferences: [{ guid: 'LINE-COOK', entityType: 'RestaurantJob' }] });
    const errors = validator.errors(EMPLOYEE, body);
    expect(said(errors)).toEqual([
      'an active employee\'s `jobReferences[0].guid` ("LINE-COOK") is not a platform GUID as the service returns it (8-4-4-4-12 hex, lower case)',
    ]);
    expect(errors[0]).toContain('/jobReferences/0/guid must match pattern');
    expect(errors[0]).toContain('/jobReferences/0/guid must match format "uuid"');
  });

  it('names the value as the caller says', () => {
    const header = { type: 'integer', minimum: 0 };
    expect(said(validator.errors(header, -1, 'the RateLimit-Remaining header'))).toEqual([
      'the RateLimit-Remaining header (-1) must be >= 0',
    ]);
  });
});

it('reads every word from the spec it is given: no table of names to outdate', () => {
  const spec = createSchemaValidator({
    components: {
      schemas: {
        PurchaseOrder: {
          type: 'object',
          required: ['number'],
          properties: {
            number: { type: 'string' },
            closedAt: { type: 'string' },
            closed: { type: 'boolean' },
          },
          if: { required: ['closedAt'] },
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema's then
          then: { title: 'closed', properties: { closed: { const: true } } },
          else: { title: 'open', properties: { closed: { const: false } } },
        },
      },
    },
  });
  const order = { $ref: '#/components/schemas/PurchaseOrder' };
  expect(said(spec.errors(order, { number: '1', closed: true }))).toEqual([
    "a closed purchase order's `closedAt` is missing",
  ]);
  expect(said(spec.errors(order, { closed: false }))).toEqual([
    "an open purchase order's `number` is missing",
  ]);
});
