// Generators of state-table calls: a pick says which role, which context restaurant, which record
// (its own or another restaurant's, by GUID in any letter case or by external id) and which token;
// resolved against the world, it is the call the model predicts.
import fc from 'fast-check';
import { printable } from './draft-arbitraries.js';
import type { Engine } from './engine.js';
import { type Call, showCall } from './requests.js';
import { ROLE_NAMES, type Role } from './state-table-operations.js';

/** How a call names its target, before it is resolved against the world. */
export interface Pick {
  readonly role: Role;
  readonly context: number;
  /** Own: a record of the context restaurant; foreign: of another restaurant. */
  readonly foreign: boolean;
  readonly record: number;
  readonly byExternalId: boolean;
  /** Letter case of GUIDs in the path and the context header (bit masks). */
  readonly pathCase: number;
  readonly contextCase: number;
  readonly includeArchived: 'true' | 'false' | undefined;
  readonly rawColon: boolean;
  /** Which token: for every restaurant, for the context only, or for it and another. */
  readonly grant: 'all' | 'context' | 'context-and-other';
}

const withCaseMask = (text: string, mask: number) =>
  [...text].map((char, i) => ((mask >> (i % 31)) & 1 ? char.toUpperCase() : char)).join('');

const at = <T>(list: readonly T[], index: number): T | undefined =>
  list.length === 0 ? undefined : list[index % list.length];

/** The call a pick makes in this world. */
export function callOf(engine: Engine, pick: Pick): Call {
  const { world } = engine;
  const context =
    at(world.restaurants, pick.context)?.guid ?? '00000000-0000-4000-8000-000000000000';
  const others = world.restaurants.filter((r) => r.guid !== context);
  const grantRestaurants =
    pick.grant === 'all'
      ? ('*' as const)
      : pick.grant === 'context'
        ? [withCaseMask(context, pick.contextCase ^ pick.pathCase)]
        : [context, ...(others[0] === undefined ? [] : [others[0].guid])];
  const grant = { scopes: engine.spec.scopes, restaurants: grantRestaurants };
  let id: string;
  if (pick.role === 'getRestaurant') {
    const named = pick.foreign ? (at(others, pick.record)?.guid ?? context) : context;
    id = withCaseMask(named, pick.pathCase);
  } else {
    const pool = pick.role === 'deleteShift' ? world.shifts : world.employees;
    const candidates = pool.filter((r) => (r.restaurant === context) !== pick.foreign);
    const record = at(candidates.length > 0 ? candidates : pool, pick.record);
    if (record === undefined)
      id = withCaseMask('6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', pick.pathCase);
    else if (pick.byExternalId && record.externalId !== undefined) id = record.externalId;
    else id = withCaseMask(record.guid, pick.pathCase);
  }
  return {
    role: pick.role,
    context: withCaseMask(context, pick.contextCase),
    grant,
    id,
    ...(pick.includeArchived === undefined ? {} : { includeArchived: pick.includeArchived }),
    rawColon: pick.rawColon,
  };
}

/** A pick as fast-check prints it in a counterexample: the HTTP call it makes. */
export const showPick = (engine: Engine, pick: Pick) => showCall(engine, callOf(engine, pick));

/** Picks that fast-check prints as the HTTP calls they make. */
export const printedPickArb = (
  engine: Engine,
  foreignWeight: number,
  grants: readonly Pick['grant'][],
): fc.Arbitrary<Pick> =>
  pickArb(foreignWeight, grants).map((pick) => printable(pick, (p) => showPick(engine, p)));

export function pickArb(
  foreignWeight: number,
  grants: readonly Pick['grant'][],
): fc.Arbitrary<Pick> {
  return fc.record({
    role: fc.constantFrom(...ROLE_NAMES),
    context: fc.nat({ max: 63 }),
    foreign:
      foreignWeight === 0
        ? fc.constant(false)
        : fc.oneof(
            { weight: 4 - foreignWeight, arbitrary: fc.constant(false) },
            { weight: foreignWeight, arbitrary: fc.constant(true) },
          ),
    record: fc.nat({ max: 63 }),
    byExternalId: fc.boolean(),
    pathCase: fc.oneof(fc.constant(0), fc.nat({ max: 0x7fffffff })),
    contextCase: fc.oneof(fc.constant(0), fc.nat({ max: 0x7fffffff })),
    includeArchived: fc.constantFrom('true' as const, 'false' as const, undefined),
    rawColon: fc.boolean(),
    grant: fc.constantFrom(...grants),
  });
}
