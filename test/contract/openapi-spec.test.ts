// The spec against the decisions of CONTRACT.md that a linter cannot know: the operations, their
// scopes, the statuses and headers every response must declare, the problem codes, and the
// identifier patterns.
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

type Schema = {
  type?: string;
  pattern?: string;
  enum?: string[];
  const?: unknown;
  default?: unknown;
  format?: string;
  properties?: Record<string, Schema>;
  allOf?: Schema[];
};
type Header = { required?: boolean; schema: Schema };
type MediaType = { schema: Schema; examples?: Record<string, { value: unknown }> };
type Response = { headers?: Record<string, Header>; content?: Record<string, MediaType> };
type Parameter = { name: string; in: string; required?: boolean; schema: Schema };
type Operation = {
  operationId: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters: Parameter[];
  responses: Record<string, Response>;
};
type OpenApi = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<
      string,
      {
        type: string;
        flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } };
      }
    >;
  };
};

const specPath = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

const CONTRACT_OPERATIONS = [
  {
    operationId: 'unarchiveEmployee',
    method: 'put',
    path: '/labor/v1/employees/{employeeId}/unarchive',
    scope: 'labor.employees:write',
    tag: 'Employees',
  },
  {
    operationId: 'archiveEmployee',
    method: 'delete',
    path: '/labor/v1/employees/{employeeId}',
    scope: 'labor.employees:write',
    tag: 'Employees',
  },
  {
    operationId: 'deleteShift',
    method: 'delete',
    path: '/labor/v1/shifts/{shiftId}',
    scope: 'labor.shifts:write',
    tag: 'Shifts',
  },
  {
    operationId: 'getRestaurant',
    method: 'get',
    path: '/restaurants/v1/restaurants/{restaurantGUID}',
    scope: 'restaurants:read',
    tag: 'Restaurants',
  },
] as const;

const ERROR_STATUSES_OF_EVERY_OPERATION = ['400', '401', '403', '404', '405', '429', '500', '503'];
const EXTRA_ERROR_STATUSES: Record<string, string[]> = { unarchiveEmployee: ['413', '415'] };

let spec: OpenApi;
beforeAll(async () => {
  spec = (await $RefParser.dereference(specPath)) as unknown as OpenApi;
});

function operation(path: string, method: string): Operation {
  const op = spec.paths[path]?.[method];
  if (!op) throw new Error(`no operation ${method.toUpperCase()} ${path}`);
  return op;
}

/** The `code` enum and `status` const that an error response's `allOf` adds to Problem. */
function problemConstraints(response: Response): { codes: string[]; status: unknown } {
  const schema = response.content?.['application/problem+json']?.schema;
  const narrowing = schema?.allOf?.find((part) => part.properties?.status?.const !== undefined);
  return {
    codes: narrowing?.properties?.code?.enum ?? [],
    status: narrowing?.properties?.status?.const,
  };
}

describe('operations', () => {
  it('are exactly the four of CONTRACT.md', () => {
    const found = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method} ${path} ${op.operationId}`),
    );
    expect(found.sort()).toEqual(
      CONTRACT_OPERATIONS.map((op) => `${op.method} ${op.path} ${op.operationId}`).sort(),
    );
  });

  it.each(CONTRACT_OPERATIONS)('$operationId names its scope and tag', (contract) => {
    const op = operation(contract.path, contract.method);
    expect(op.security).toEqual([{ oauth2: [contract.scope] }]);
    expect(op.tags).toEqual([contract.tag]);
    const scopes = spec.components.securitySchemes.oauth2?.flows.clientCredentials.scopes ?? {};
    expect(Object.keys(scopes)).toContain(contract.scope);
  });

  it('use the client-credentials flow with the token URL of CONTRACT.md', () => {
    const scheme = spec.components.securitySchemes.oauth2;
    expect(scheme?.type).toBe('oauth2');
    const tokenUrl = new URL(scheme?.flows.clientCredentials.tokenUrl ?? '');
    expect(tokenUrl.pathname).toBe('/authentication/v1/authentication/login');
  });

  it.each(CONTRACT_OPERATIONS)(
    '$operationId requires the restaurant context header as a GUID',
    (contract) => {
      const header = operation(contract.path, contract.method).parameters.find(
        (p) => p.in === 'header' && p.name.toLowerCase() === 'platform-restaurant-external-id',
      );
      expect(header?.required).toBe(true);
      expect(header?.schema.pattern).toBe(spec.components.schemas.GuidInput?.pattern);
    },
  );
});

describe('responses', () => {
  it.each(CONTRACT_OPERATIONS)('$operationId documents every status it can return', (contract) => {
    const op = operation(contract.path, contract.method);
    const expected = [
      '200',
      ...ERROR_STATUSES_OF_EVERY_OPERATION,
      ...(EXTRA_ERROR_STATUSES[contract.operationId] ?? []),
    ];
    expect(Object.keys(op.responses).sort()).toEqual(expected.sort());
  });

  it.each(CONTRACT_OPERATIONS)(
    '$operationId declares X-Request-Id on every response',
    (contract) => {
      for (const [status, response] of Object.entries(
        operation(contract.path, contract.method).responses,
      )) {
        expect(response.headers?.['X-Request-Id']?.required, status).toBe(true);
      }
    },
  );

  it.each(CONTRACT_OPERATIONS)(
    '$operationId declares the headers of 401, 403, 405, 429 and 503',
    (contract) => {
      const { responses } = operation(contract.path, contract.method);
      expect(responses['401']?.headers?.['WWW-Authenticate']?.required).toBe(true);
      expect(responses['403']?.headers?.['WWW-Authenticate']?.required).toBe(true);
      expect(responses['405']?.headers?.Allow?.required).toBe(true);
      expect(responses['429']?.headers?.['Retry-After']?.required).toBe(true);
      expect(responses['503']?.headers?.['Retry-After']?.required).toBe(true);
    },
  );

  it.each(CONTRACT_OPERATIONS)(
    '$operationId answers errors as problem details with listed codes',
    (contract) => {
      const problemCodes = spec.components.schemas.ProblemCode?.enum ?? [];
      for (const [status, response] of Object.entries(
        operation(contract.path, contract.method).responses,
      )) {
        if (status.startsWith('2')) continue;
        expect(Object.keys(response.content ?? {}), status).toEqual(['application/problem+json']);
        const { codes, status: statusConst } = problemConstraints(response);
        expect(codes.length, status).toBeGreaterThan(0);
        expect(problemCodes, status).toEqual(expect.arrayContaining(codes));
        expect(statusConst, status).toBe(Number(status));
      }
    },
  );

  it.each(CONTRACT_OPERATIONS)('$operationId has an example for every response', (contract) => {
    for (const [status, response] of Object.entries(
      operation(contract.path, contract.method).responses,
    )) {
      for (const [mediaType, content] of Object.entries(response.content ?? {})) {
        expect(
          Object.keys(content.examples ?? {}).length,
          `${status} ${mediaType}`,
        ).toBeGreaterThan(0);
      }
    }
  });

  it('use every problem code, but NOT_FOUND (unknown paths) and INVALID_CLIENT (the dev login)', () => {
    const used = new Set(
      CONTRACT_OPERATIONS.flatMap((contract) =>
        Object.values(operation(contract.path, contract.method).responses).flatMap(
          (response) => problemConstraints(response).codes,
        ),
      ),
    );
    const declared = spec.components.schemas.ProblemCode?.enum ?? [];
    expect([...used, 'NOT_FOUND', 'INVALID_CLIENT'].sort()).toEqual([...declared].sort());
  });
});

describe('parameters', () => {
  it('default includeArchived to false and accept only booleans', () => {
    const param = operation('/restaurants/v1/restaurants/{restaurantGUID}', 'get').parameters.find(
      (p) => p.name === 'includeArchived',
    );
    expect(param?.in).toBe('query');
    expect(param?.schema).toMatchObject({ type: 'boolean', default: false });
  });

  it('leave restaurantGUID unconstrained, so that a bad one is 404 rather than 400', () => {
    const param = operation('/restaurants/v1/restaurants/{restaurantGUID}', 'get').parameters.find(
      (p) => p.name === 'restaurantGUID',
    );
    expect(param?.schema).toEqual({ type: 'string' });
  });
});

describe('identifier patterns', () => {
  // ajv compiles patterns with the `u` flag; so do the tests.
  const pattern = (schema: Schema | undefined) => new RegExp(schema?.pattern ?? '(?!)', 'u');
  let guidInput: RegExp;
  let guidOutput: RegExp;
  let externalId: RegExp;
  let shiftId: RegExp;
  beforeAll(() => {
    guidInput = pattern(spec.components.schemas.GuidInput);
    guidOutput = pattern(spec.components.schemas.Guid);
    externalId = pattern(spec.components.schemas.ExternalId);
    shiftId = pattern(
      operation('/labor/v1/shifts/{shiftId}', 'delete').parameters.find((p) => p.name === 'shiftId')
        ?.schema,
    );
  });

  it.each([
    ['6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', true],
    ['6A2B9C4D-1E3F-4A5B-8C7D-9E0F1A2B3C4D', true],
    ['6a2b9c4d1e3f4a5b8c7d9e0f1a2b3c4d', false],
    ['{6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d}', false],
    ['urn:uuid:6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', false],
    ['6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4g', false],
    [' 6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', false],
  ])('GUID input %j: %s', (value, ok) => {
    expect(guidInput.test(value)).toBe(ok);
  });

  it('GUID output is the lower-case form only', () => {
    expect(guidOutput.test('6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d')).toBe(true);
    expect(guidOutput.test('6A2B9C4D-1E3F-4A5B-8C7D-9E0F1A2B3C4D')).toBe(false);
  });

  it.each([
    ['AUTH:12', true],
    ['SCHEDULER:shift-20260301-0042', true],
    ['a_b-C9:x', true],
    [`${'A'.repeat(16)}:v`, true],
    [`${'A'.repeat(17)}:v`, false],
    [`A:${'v'.repeat(256)}`, true],
    [`A:${'v'.repeat(257)}`, false],
    [`A:${'é'.repeat(256)}`, true],
    ['A:value:with:colons', true],
    ['A:a/b?c', true],
    ['AUTH:', false],
    [':12', false],
    ['AUTH12', false],
    ['AU TH:12', false],
    ['AUTH.X:12', false],
    ['AUTH:1 2', false],
    ['AUTH:1\t2', false],
    ['AUTH:1\u00a02', false],
    ['AUTH:1\u20282', false],
    ['AUTH:1\u00002', false],
    ['AUTH:1\u007f2', false],
    ['AUTH:1\u00852', false],
  ])('external identifier %j: %s', (value, ok) => {
    expect(externalId.test(value)).toBe(ok);
  });

  it('shiftId accepts exactly the GUIDs and the external identifiers', () => {
    const candidates = fc.oneof(
      fc.uuid().map((uuid) => uuid.toUpperCase()),
      fc.uuid(),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 300 }))
        .map(([authority, value]) => `${authority}:${value}`),
    );
    fc.assert(
      fc.property(candidates, (value) => {
        expect(shiftId.test(value)).toBe(guidInput.test(value) || externalId.test(value));
      }),
      { numRuns: 2000 },
    );
    // 2,000 generated strings of up to 300 graphemes: about a second alone, more when the machine
    // is shared; the default 5 s would fail it on a slow machine for no fault of the pattern.
  }, 60_000);
});
