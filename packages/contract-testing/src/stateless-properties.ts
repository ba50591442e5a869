// Stateless properties of each operation: requests generated from its parameter schemas (valid
// ones, and invalid ones field by field), sent one at a time; every answer is held to what the
// spec documents for the operation. The few rules the spec states only in prose (the body limit,
// the media type of unarchive, the reuse of X-Request-Id) are in the generators.
import fc from 'fast-check';
import type { Answer } from './answer-checks.js';
import { jsonOf, problemOf } from './answer-checks.js';
import { defectArb, grantArb, printable, validDraftArb } from './draft-arbitraries.js';
import { type Engine, send } from './engine.js';
import type { WireResponse } from './http-client.js';
import { fullGrant, probeUnchanged, sendCall } from './model-calls.js';
import type { PropertyDefinition } from './property-runner.js';
import {
  callOfDraft,
  contextOfDraft,
  type Draft,
  draftToWire,
  setValue,
  showDraft,
} from './requests.js';
import { isValidText, type SpecOperation } from './spec-reader.js';
import { grantRefusal, observe, recordNamed } from './state-oracle.js';
import { acceptsExternalIds, externalIdArb } from './value-arbitraries.js';

/** Codes of a request refused for its form or its credentials, never of one valid and authorized. */
const REFUSAL_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INVALID_TOKEN',
  'INSUFFICIENT_SCOPE',
  'RESTAURANT_NOT_PERMITTED',
];

/** A body without the fields that differ between any two answers (the request id). */
const comparable = (response: WireResponse) => {
  const body = jsonOf(response);
  if (body === null || typeof body !== 'object') return JSON.stringify(body);
  const { requestId: _r, instance: _i, ...rest } = body as Record<string, unknown>;
  return JSON.stringify(rest);
};

/**
 * Sends a valid draft. One of the state tables' operations is held to the answer the model
 * expects (a refusal of its grant, the state tables, 404 for a record the context does not have)
 * and moves the knowledge; another only to its grant and to what the spec documents. `first`
 * checks come before those.
 */
async function sendValid(
  engine: Engine,
  op: SpecOperation,
  draft: Draft,
  first: (answer: Answer) => void = () => {},
): Promise<Answer> {
  const req = await draftToWire(engine, draft);
  const call = callOfDraft(draft);
  if (call !== undefined) return sendCall(engine, call, req, { noReveal: false, first });
  const answer = await send(engine, req, op);
  first(answer);
  answer.documented(op);
  const refusal = grantRefusal(draft.grant, op, contextOfDraft(draft));
  if (refusal !== undefined) answer.problem(refusal.rule, refusal.status, refusal.code);
  return answer;
}

function validRequests(engine: Engine, op: SpecOperation): PropertyDefinition {
  return {
    name: `stateless.${op.id}.valid-requests`,
    group: 'stateless',
    summary: `generated valid requests of ${op.id} (existing and missing records, any grant) get a documented answer, never a 5xx, the one the state tables give; a valid, authorized one is not refused`,
    build: (trial) =>
      fc.asyncProperty(
        validDraftArb(engine, op, grantArb(engine)),
        trial.predicate({ fresh: false }, async (draft) => {
          const allowed = grantRefusal(draft.grant, op, contextOfDraft(draft)) === undefined;
          await sendValid(engine, op, draft, (answer) => {
            // Before the model's checks, so that a refusal for the request's form is named so.
            if (allowed && answer.request.method !== 'HEAD' && answer.status >= 400) {
              const code = String(problemOf(answer.response).code);
              answer.check(!REFUSAL_CODES.includes(code), 'valid-accepted');
            }
          });
        }),
      ),
  };
}

function invalidInput(engine: Engine, op: SpecOperation): PropertyDefinition {
  return {
    name: `stateless.${op.id}.invalid-input`,
    group: 'stateless',
    summary: `invalid input to ${op.id}, field by field (parameters, media type, body), is the documented 4xx naming the input, and changes nothing`,
    build: (trial) =>
      fc.asyncProperty(
        // Printed in a counterexample as the HTTP call the defect makes, and what it must get.
        fc
          .tuple(
            validDraftArb(engine, op, fc.constant(fullGrant(engine))),
            defectArb(engine.spec, op),
          )
          .map(([valid, defect]) =>
            printable(
              { valid, defect },
              (c) => `${showDraft(c.defect.apply(c.valid))}, ${fc.stringify(c.defect)}`,
            ),
          ),
        trial.predicate({ fresh: false }, async ({ valid, defect }) => {
          const draft = defect.apply(valid);
          const answer = await send(engine, await draftToWire(engine, draft), op);
          const call = callOfDraft(draft);
          if (call !== undefined) observe(engine, engine.knowledge, call, answer.response);
          answer.documented(op);
          answer.problem(defect.rule, defect.status, defect.code);
          const { errorPath } = defect;
          if (errorPath !== undefined && answer.request.method !== 'HEAD') {
            const paths = (problemOf(answer.response).errors ?? []).map((error) =>
              String(error.path).toLowerCase(),
            );
            answer.check(
              paths.includes(errorPath.toLowerCase()),
              'error-path',
              () => `expected ${errorPath} in errors: ${answer.show()}`,
            );
          }
          const named = callOfDraft(valid);
          const record = named === undefined ? undefined : recordNamed(engine, named);
          if (record !== undefined) await probeUnchanged(engine, record, answer);
        }),
      ),
  };
}

function defaultParameters(engine: Engine, op: SpecOperation): PropertyDefinition | undefined {
  const defaulted = op.parameters.filter((p) => !p.required && p.schema.default !== undefined);
  if (defaulted.length === 0 || !['GET', 'HEAD'].includes(op.method)) return undefined;
  return {
    name: `stateless.${op.id}.default-parameters`,
    group: 'stateless',
    summary: `an optional parameter of ${op.id} sent with its default is answered as when left out`,
    runs: (runs) => Math.ceil(runs / 2),
    build: (trial) =>
      fc.asyncProperty(
        // Printed in a counterexample as the two HTTP calls it compares.
        fc
          .tuple(
            validDraftArb(engine, op, fc.constant(fullGrant(engine))),
            fc.constantFrom(...defaulted),
          )
          .map(([valid, p]) => {
            const plain = { ...valid, method: op.method };
            const pair = {
              left: setValue(plain, p, undefined),
              given: setValue(plain, p, { text: String(p.schema.default) }),
            };
            return printable(pair, (c) => `${showDraft(c.left)}, and ${showDraft(c.given)}`);
          }),
        trial.predicate({ fresh: false }, async (pair) => {
          const left = await draftToWire(engine, pair.left);
          const given = await draftToWire(engine, pair.given);
          const a = await send(engine, left, op);
          const b = await send(engine, given, op);
          a.documented(op);
          b.documented(op);
          b.check(
            a.status === b.status && comparable(a.response) === comparable(b.response),
            'default-parameter',
            () => `${a.show()}\nbut ${b.show()}`,
          );
        }),
      ),
  };
}

/**
 * Every well-formed external identifier of a path parameter that takes them, ASCII or not, reaches the
 * store (a full grant, a valid request) and is answered as documented: found or not, never a 5xx.
 * Its own property, so that each run reaches the store: the valid requests draw these too, but
 * rarely authorized and valid all at once.
 */
function externalIdentifiers(engine: Engine, op: SpecOperation): PropertyDefinition | undefined {
  const p = op.parameters.find((q) => acceptsExternalIds(engine.spec, q));
  if (p === undefined) return undefined;
  return {
    name: `stateless.${op.id}.external-identifiers`,
    group: 'stateless',
    summary: `any well-formed external identifier, ASCII or beyond, given to ${op.id} gets a documented answer, never a 5xx: the record's, or 404 when the context has none`,
    runs: (runs) => Math.ceil(runs / 2),
    build: (trial) =>
      fc.asyncProperty(
        fc
          .tuple(
            validDraftArb(engine, op, fc.constant(fullGrant(engine))),
            fc
              .oneof(externalIdArb(false), externalIdArb(true))
              .filter((text) => isValidText(engine.spec, p, text)),
          )
          .map(([valid, externalId]) => setValue(valid, p, { text: externalId })),
        trial.predicate({ fresh: false }, async (draft) => {
          await sendValid(engine, op, draft);
        }),
      ),
  };
}

/** The stateless properties of every operation of the spec. */
export function statelessProperties(engine: Engine): PropertyDefinition[] {
  const { operations } = engine.spec;
  return [
    ...operations.flatMap((op) => {
      const defaults = defaultParameters(engine, op);
      return [validRequests(engine, op), invalidInput(engine, op), ...(defaults ? [defaults] : [])];
    }),
    ...operations.flatMap((op) => externalIdentifiers(engine, op) ?? []),
  ];
}
