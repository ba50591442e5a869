// The operations of the state tables (docs/contract.md), found in the spec by operationId, with
// the parameters the model fills in: the record's path parameter, the restaurant context header,
// and the boolean query flag.
import {
  documentedCodes,
  isUnconstrained,
  type Spec,
  type SpecOperation,
  type SpecParameter,
} from './spec-reader.js';

/** The operations of the state tables, by the spec's operationId. */
const ROLES = {
  unarchive: 'unarchiveEmployee',
  archive: 'archiveEmployee',
  deleteShift: 'deleteShift',
  getRestaurant: 'getRestaurant',
} as const;
export type Role = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as Role[];

/** The role an operation plays in the state tables, if any. */
export const roleOf = (op: SpecOperation): Role | undefined =>
  ROLE_NAMES.find((role) => ROLES[role] === op.id);

/** The problem code of a record a role's call does not find. */
export const NOT_FOUND_CODE: Readonly<Record<Role, string>> = {
  unarchive: 'EMPLOYEE_NOT_FOUND',
  archive: 'EMPLOYEE_NOT_FOUND',
  deleteShift: 'SHIFT_NOT_FOUND',
  getRestaurant: 'RESTAURANT_NOT_FOUND',
};

export const pathParameterOf = (op: SpecOperation): SpecParameter => {
  const found = op.parameters.find((p) => p.in === 'path');
  if (found === undefined) throw new Error(`${op.id} has no path parameter`);
  return found;
};

/** The restaurant context header: the required header whose schema constrains its value. */
export const contextHeaderOf = (op: SpecOperation): SpecParameter | undefined =>
  op.parameters.find((p) => p.in === 'header' && p.required && !isUnconstrained(p));

/** The boolean query parameter of an operation (getRestaurant's includeArchived). */
export const flagOf = (op: SpecOperation): SpecParameter | undefined =>
  op.parameters.find((p) => p.in === 'query' && p.schema.type === 'boolean');

/** The spec's operations of the state tables; throws when one is missing or lacks a documented code. */
export function stateTableOperations(spec: Spec): Readonly<Record<Role, SpecOperation>> {
  const lookUp = (role: Role) => {
    const op = spec.operations.find((o) => o.id === ROLES[role]);
    if (op === undefined) throw new Error(`the spec has no operation ${ROLES[role]}`);
    if (contextHeaderOf(op) === undefined) throw new Error(`${op.id} has no context header`);
    pathParameterOf(op);
    return op;
  };
  const found: Readonly<Record<Role, SpecOperation>> = {
    unarchive: lookUp('unarchive'),
    archive: lookUp('archive'),
    deleteShift: lookUp('deleteShift'),
    getRestaurant: lookUp('getRestaurant'),
  };
  const documents = (role: Role, status: number, code: string) => {
    const schema = found[role].responses
      .get(String(status))
      ?.content.get('application/problem+json');
    if (!documentedCodes(spec, schema).includes(code)) {
      throw new Error(`the spec does not list ${code} for ${status} of ${ROLES[role]}`);
    }
  };
  for (const role of ROLE_NAMES) {
    documents(role, 403, 'INSUFFICIENT_SCOPE');
    documents(role, 403, 'RESTAURANT_NOT_PERMITTED');
    documents(role, 404, NOT_FOUND_CODE[role]);
  }
  documents('unarchive', 400, 'EMPLOYEE_NOT_ARCHIVED');
  documents('unarchive', 400, 'VALIDATION_FAILED');
  documents('archive', 400, 'VALIDATION_FAILED');
  documents('deleteShift', 400, 'VALIDATION_FAILED');
  return found;
}
