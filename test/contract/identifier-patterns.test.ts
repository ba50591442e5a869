// The core parses identifiers with the same patterns the spec states (and the validator checks):
// a change to one that the other does not follow fails here.
import { IDENTIFIER_PATTERNS, isGuid, parseExternalId, parseRecordId } from '@workforce-kit/core';
import { externalIdArb, malformedShiftIdArb, shiftIdInputArb } from '@workforce-kit/core/testing';
import { openapiDocument } from '@workforce-kit/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type Schemas = Record<string, { pattern?: string }>;
const schemas = (openapiDocument.components as { schemas: Schemas }).schemas;
const parameters = (
  openapiDocument.components as { parameters: Record<string, { schema: { $ref?: string } }> }
).parameters;

describe('identifier patterns of the core and the spec', () => {
  it('are the same text', () => {
    expect(`^${IDENTIFIER_PATTERNS.guid.replace(/^\^|\$$/g, '')}$`).toBe(
      schemas.GuidInput?.pattern,
    );
    expect(`^${IDENTIFIER_PATTERNS.externalId.replace(/^\^|\$$/g, '')}$`).toBe(
      schemas.ExternalId?.pattern,
    );
  });

  it('name the record-id schema for shiftId and the employeeId of archive', () => {
    expect(parameters.ShiftId?.schema.$ref).toBe('#/components/schemas/RecordIdInput');
    expect(parameters.EmployeeId?.schema.$ref).toBe('#/components/schemas/RecordIdInput');
    expect(parameters.EmployeeGuid?.schema.$ref).toBe('#/components/schemas/GuidInput');
  });

  it('accept and refuse the same record ids (shift ids, employee ids of archive)', () => {
    const spec = new RegExp(schemas.RecordIdInput?.pattern ?? '(?!)', 'u');
    fc.assert(
      fc.property(
        fc.oneof(
          shiftIdInputArb,
          malformedShiftIdArb,
          fc.string({ unit: 'binary', maxLength: 300 }),
        ),
        (value) => {
          expect(parseRecordId(value, 'shiftId').isOk()).toBe(spec.test(value));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuse unpaired surrogates, which have no UTF-8 form', () => {
    const spec = new RegExp(schemas.ExternalId?.pattern ?? '(?!)', 'u');
    for (const value of ['A:\uD800', 'A:x\uDFFFy']) {
      expect(parseExternalId(value)).toBeUndefined();
      expect(spec.test(value)).toBe(false);
    }
    fc.assert(
      fc.property(externalIdArb, (value) => {
        expect(Buffer.from(value, 'utf8').toString('utf8')).toBe(value);
        expect(isGuid(value)).toBe(false);
      }),
    );
  });
});
