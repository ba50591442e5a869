// How much a run's changes proved: for each property, how often each kind of change reached a
// record and how often it ran against one in a state where it changes something (the model
// says); and where a group whose rules are about changes (the state tables, races) ran a kind
// too few times, for want of records in the seed (docs/contract-testing.md, "Thin evidence").
import type { PropertyGroup } from './property-groups.js';
import { DEFAULT_RUNS } from './property-runner.js';
import type { Role } from './state-table-operations.js';
import type { World } from './world.js';

/** The roles of the state tables that change a record. */
export type ChangeRole = Exclude<Role, 'getRestaurant'>;

/** Every {@link ChangeRole}, in the order a report lists them. */
export const CHANGE_ROLES: readonly ChangeRole[] = ['unarchive', 'archive', 'deleteShift'];

/** A property's calls of one operation that changes a record. */
export interface ChangeCount {
  /** The calls that reached a record of the seed (in the concurrent group: sent on a branch). */
  readonly reached: number;
  /**
   * Those that ran against the record in a state where they change it, as the model says (in the
   * concurrent group: raced, that is changed it in the order the checker found while another call
   * of the record was under way).
   */
  readonly changed: number;
}

/** A property that ran, as the changes' tally keeps it. */
export interface PropertyRan {
  readonly group: PropertyGroup;
  /** The runs it was to make. */
  readonly runs: number;
  /** Whether it held (a failed one's counts stop at its failure: they are not weighed). */
  passed: boolean;
}

/** A kind of change a property ran too few times, for want of records in the seed. */
export interface ThinEvidence {
  readonly property: string;
  readonly operationId: string;
  /** The changes it ran ({@link ChangeCount.changed}). */
  readonly changed: number;
  /** The seed's records that kind of change can change. */
  readonly records: number;
  /** The warning in words: what ran, what the seed has, what would make the check stronger. */
  readonly message: string;
}

/**
 * The fewest changes of each kind a group about changes must run for its evidence to count: the
 * figures behind it are in docs/contract-testing.md ("Thin evidence").
 */
export const MIN_CHANGES = 5;

/** The groups whose rules are about changes: they warn when they ran too few. */
const GROUPS_ABOUT_CHANGES: readonly PropertyGroup[] = ['stateful', 'concurrent'];

/** What a property did, by group: `deleted shifts` or, in the concurrent group, `raced shift deletes`. */
const DONE: Readonly<Record<ChangeRole, { readonly one: string; readonly raced: string }>> = {
  unarchive: { one: 'unarchived employees', raced: 'raced unarchives' },
  archive: { one: 'archived employees', raced: 'raced archives' },
  deleteShift: { one: 'deleted shifts', raced: 'raced shift deletes' },
};

const plural = (n: number, word: string) => `${n === 0 ? 'no' : n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The seed's records a kind of change can change, and their words: the shifts that are not
 * deleted (a deleted shift stays so), or the employees (any of them can be archived, then
 * unarchived).
 */
function seedRecords(
  world: World,
  role: ChangeRole,
): { readonly count: number; readonly words: string } {
  if (role === 'deleteShift') {
    const count = world.shifts.filter((s) => !s.seedDeleted).length;
    return {
      count,
      words: `${plural(count, 'shift')} that ${count === 1 ? 'is' : 'are'} not deleted`,
    };
  }
  const count = world.employees.length;
  return { count, words: plural(count, 'employee') };
}

/**
 * Each kind of change a property of a group about changes that held ran fewer than
 * {@link MIN_CHANGES} times. With the default runs, a seed with a few records of each kind
 * reaches that many on a target reset before each run, so the seed is what held it back: too few
 * records (on a live target, the run's own deletes use up the shifts), or too few of one kind
 * beside the other (a case picks among employees and shifts alike). With fewer runs, the runs
 * may have been too few as well, and the words say so.
 *
 * @param ran - the properties that ran, by name
 * @param count - a property's calls of a kind of change
 * @param world - the seed's records
 * @param operationIdOf - the operationId of a role
 */
export function thinEvidence(
  ran: ReadonlyMap<string, PropertyRan>,
  count: (property: string, role: ChangeRole) => ChangeCount,
  world: World,
  operationIdOf: (role: ChangeRole) => string,
): ThinEvidence[] {
  const found: ThinEvidence[] = [];
  for (const [property, { group, runs, passed }] of ran) {
    if (!passed || !GROUPS_ABOUT_CHANGES.includes(group)) continue;
    for (const role of CHANGE_ROLES) {
      const { changed } = count(property, role);
      if (changed >= MIN_CHANGES) continue;
      const records = seedRecords(world, role);
      const done = group === 'concurrent' ? DONE[role].raced : DONE[role].one;
      const times = changed === 1 ? 'once' : `${changed} times`;
      const more =
        runs < DEFAULT_RUNS ? `a seed with more, or more than ${runs} runs,` : 'a seed with more';
      found.push({
        property,
        operationId: operationIdOf(role),
        changed,
        records: records.count,
        message: `${property} ${done} ${times}: the seed has ${records.words}; ${more} makes this check stronger`,
      });
    }
  }
  return found;
}
