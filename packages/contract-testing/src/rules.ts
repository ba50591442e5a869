// The rules of the contract the kit checks, each with the name a report shows, and the error that
// says one is broken.

/** The rules of the contract the kit checks, by name. */
export const RULES = {
  'no-server-error': 'no request is answered with a 5xx',
  'documented-status': 'the status is one the spec documents for the operation',
  'documented-headers': "the response headers match the documented response's headers",
  'documented-media-type': 'the media type is one the spec documents for the status',
  'documented-body': "the body matches the documented response's schema",
  'documented-code': "a problem's code is one the spec lists for that status",
  'problem-details': "a problem's status and requestId are the response's status and X-Request-Id",
  'request-id': 'every response carries X-Request-Id, the client’s own when it is sane',
  'valid-accepted': 'a valid, authorized request is not refused for its form or credentials',
  'invalid-refused': 'invalid input is refused with the documented 4xx and code',
  'error-path': 'a validation failure names the offending input in errors[].path',
  'unchanged-by-refusal': 'a refused request changes nothing',
  'default-parameter': 'an optional parameter sent with its default is answered as left out',
  'method-not-allowed': 'a known path with a method it does not support is 405 with Allow',
  'unknown-path': 'a path under the API that names no operation is 404 NOT_FOUND',
  'unarchive-archived': 'unarchive of an archived employee is 200 with deleted false (state table)',
  'unarchive-unarchived': 'unarchive of an unarchived employee is 400 EMPLOYEE_NOT_ARCHIVED',
  'archive-unarchived': 'archive of an unarchived employee is 200 with deleted true',
  'archive-archived':
    'archive of an archived employee is 200 with the record unchanged, modifiedDate included',
  'delete-shift': 'delete of a shift is 200 with deleted true',
  'delete-deleted-shift':
    'delete of a deleted shift is 200 with the record unchanged, modifiedDate included',
  'record-fields':
    "a record's fields are the seed's whatever the changes (jobs and wage overrides kept, no passcode), createdDate included",
  'modified-date':
    'unarchive, archive and delete set modifiedDate: not before the one last seen, nor before the request was sent (by the target’s clock)',
  'deleted-date':
    'deletedDate is present exactly when deleted is true; archive and delete record it, not before the request was sent',
  'not-found': 'an identifier that names no record of the context restaurant is 404',
  'malformed-identifier': 'an identifier that the operation does not take is 400 VALIDATION_FAILED',
  'restaurant-read':
    'getRestaurant answers the context restaurant as seeded; 404 when archived unless includeArchived=true',
  'invalid-token':
    'a missing or bad token is 401 with WWW-Authenticate: Bearer error="invalid_token"',
  'insufficient-scope':
    'a token without the scope is 403 INSUFFICIENT_SCOPE (error="insufficient_scope")',
  'restaurant-not-permitted':
    'a token for other restaurants than the context is 403 RESTAURANT_NOT_PERMITTED',
  'other-restaurant-invisible':
    "a record of another restaurant is invisible in this one's context: 404, never read or changed",
  'no-reveal': "no answer in one restaurant's context mentions another restaurant's records",
  linearizable:
    'changes of one record sent at once answer as some order of them would, one at a time, a call that completed before another was sent coming first (linearizable)',
  'target-available': 'the target answers (within the time and rate limits given)',
  'webhook-signature':
    'every delivery verifies as Standard Webhooks says (its webhook-id, a webhook-timestamp within 5 minutes, a webhook-signature under the secret); one that does not is never an event',
  'documented-event':
    "an event's body and headers are those the spec's webhooks section documents for its type",
  'event-per-change':
    'every change emits exactly one event (one webhook-id) of its type, naming its record, its restaurant and its request (requestId)',
  'event-record': "an event's record is the record the answer to its change showed",
  'event-redelivery': 'a redelivery of an event keeps its webhook-id and its body, byte for byte',
  'no-event-without-change':
    "no event for a call that changed nothing: a refused call, a no-op (archiving an archived employee, deleting a deleted shift), a read, another restaurant's request",
  'indeterminate-event':
    'a call whose answer does not say whether it happened (a 503, a timeout, a dropped connection) emits zero events or one, and its events say which',
  'event-order': 'the events of one record arrive in the order of its changes',
  'events-delivered':
    "every change's event arrives, by the end of the run and its events timeout (none lost)",
} as const;

/** The name of a rule of {@link RULES}: what a report, a violation and `--min-coverage` name. */
export type RuleName = keyof typeof RULES;

/** Every rule's name, in the order of {@link RULES}. */
export const RULE_NAMES = Object.keys(RULES) as RuleName[];

/** The rules of the events a deployment emits: checked only when the kit is given its events. */
export const EVENT_RULES = [
  'webhook-signature',
  'documented-event',
  'event-per-change',
  'event-record',
  'event-redelivery',
  'no-event-without-change',
  'indeterminate-event',
  'event-order',
  'events-delivered',
] as const satisfies readonly RuleName[];

/** One of {@link EVENT_RULES}. */
export type EventRuleName = (typeof EVENT_RULES)[number];

/**
 * Rules only a target under faults gives the kit a chance to check (no healthy target answers a
 * 503 or redelivers an event): never a coverage gap when unchecked.
 */
export const FAULT_ONLY_RULES: ReadonlySet<RuleName> = new Set([
  'event-redelivery',
  'indeterminate-event',
]);

/** A broken rule. */
export class Violation extends Error {
  override readonly name = 'Violation';
  /**
   * Found when a record was read back after a refused request, not in the answer to a request
   * of the failing case itself: less direct evidence of the fault.
   */
  readonly readBack: boolean;
  constructor(
    readonly rule: RuleName,
    /** What happened, without the rule. */
    readonly detail: string,
    { readBack = false }: { readonly readBack?: boolean } = {},
  ) {
    super(`[${rule}] ${RULES[rule]}: ${detail}`);
    this.readBack = readBack;
  }
}
