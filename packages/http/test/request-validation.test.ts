import { type OpenApiDocument, openapiDocument } from '@workforce-kit/types';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readOperations } from '../src/operations.js';
import { compileRequestValidators } from '../src/request-validation.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What each validator ajv compiles from now on is called with beside the data, in order. */
function recordContexts(): unknown[] {
  const contexts: unknown[] = [];
  const compile = Ajv2020.prototype.compile;
  vi.spyOn(Ajv2020.prototype, 'compile').mockImplementation(function (
    this: Ajv2020,
    schema: Parameters<Ajv2020['compile']>[0],
  ) {
    const validate = compile.call(this, schema) as ValidateFunction;
    return ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
      contexts.push(context);
      return validate(data, context);
    }) as ValidateFunction;
  });
  return contexts;
}

/**
 * Compiles the validators of `document`, then validates a valid unarchive request with them: the
 * contexts ajv's validators were called with for it (not those of the compiling), and the check.
 */
function validateUnarchive(document: OpenApiDocument): {
  readonly contexts: unknown[];
  readonly valid: boolean;
} {
  const contexts = recordContexts();
  const validator = compileRequestValidators(document, readOperations(document)).get(
    'unarchiveEmployee',
  );
  contexts.length = 0;
  const restaurant = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
  const check = validator?.(
    { employeeId: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d' },
    { 'platform-restaurant-external-id': restaurant },
    {},
    {},
    restaurant as Parameters<NonNullable<typeof validator>>[4],
  );
  return { contexts, valid: check?.isOk() ?? false };
}

describe('compileRequestValidators', () => {
  it('calls ajv’s validators with one context, whose dynamic anchors nothing can write', () => {
    const { contexts, valid } = validateUnarchive(openapiDocument);
    expect(valid).toBe(true);
    expect(contexts.length).toBeGreaterThan(0);
    for (const context of contexts) expect(context).toBe(contexts[0]);
    const { dynamicAnchors } = contexts[0] as { dynamicAnchors: object };
    expect(Object.isFrozen(dynamicAnchors)).toBe(true);
  });

  it('leaves each call its own dynamic anchors when the spec names one', () => {
    const document = structuredClone(openapiDocument) as OpenApiDocument;
    const schemas = document.components?.schemas as Record<string, Record<string, unknown>>;
    schemas.EmptyBody = { ...schemas.EmptyBody, $dynamicAnchor: 'body' };
    const { contexts, valid } = validateUnarchive(document);
    expect(valid).toBe(true);
    expect(contexts.length).toBeGreaterThan(0);
    expect(contexts.filter((context) => context !== undefined)).toEqual([]);
  });
});
