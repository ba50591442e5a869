// The world of a run: the seed's records in their wire form (projected through the spec's
// schemas), and what the kit knows of each one's state now.
import type { SeedData, SeedEntry, SeedRestaurantEntry } from './seed-source.js';
import type { Spec } from './spec-reader.js';

export const DATE_FIELDS = ['createdDate', 'modifiedDate', 'deletedDate'] as const;
export type DateField = (typeof DATE_FIELDS)[number];

export interface WorldRecord {
  readonly kind: 'employee' | 'shift';
  readonly restaurant: string;
  readonly guid: string;
  readonly externalId?: string;
  /** The wire fields besides the dates and `deleted`: the seed's, through the spec's schema. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly seedDeleted: boolean;
  readonly seedDates: Readonly<Partial<Record<DateField, string>>>;
}

/** A restaurant as seeded; its `fields` are its body as getRestaurant answers it. */
export type WorldRestaurant = SeedRestaurantEntry;

export interface World {
  readonly restaurants: readonly WorldRestaurant[];
  readonly employees: readonly WorldRecord[];
  readonly shifts: readonly WorldRecord[];
  readonly byGuid: ReadonlyMap<string, WorldRecord>;
}

/** What the kit knows of a record now. */
export interface RecordState {
  deleted: boolean;
  dates: Partial<Record<DateField, string>>;
  /**
   * The seed's state, taken as the target's: no answer has shown the record since the kit last
   * took the seed's state for the target's (seed-check.ts holds the first that does to the seed).
   */
  fromSeed?: true;
}

export type Knowledge = Map<string, RecordState>;

/** The spec's record schema's properties, the seed's values for them, and its constants. */
function project(spec: Spec, schemaName: string, entry: SeedEntry): Record<string, unknown> {
  const schema = spec.componentSchema(schemaName) as
    | { properties?: Readonly<Record<string, { const?: unknown }>> }
    | undefined;
  const properties = schema?.properties ?? {};
  const fields: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if ((DATE_FIELDS as readonly string[]).includes(name) || name === 'deleted') continue;
    if (property !== null && typeof property === 'object' && 'const' in property) {
      fields[name] = property.const;
    } else if (entry.fields[name] !== undefined) fields[name] = entry.fields[name];
  }
  return fields;
}

export function buildWorld(spec: Spec, seed: SeedData): World {
  const record =
    (kind: 'employee' | 'shift', schemaName: string) =>
    (entry: SeedEntry): WorldRecord => ({
      kind,
      restaurant: entry.restaurantGuid,
      guid: entry.guid,
      ...(entry.externalId === undefined ? {} : { externalId: entry.externalId }),
      fields: project(spec, schemaName, entry),
      seedDeleted: entry.deleted,
      seedDates: Object.fromEntries(
        DATE_FIELDS.filter((name) => entry.knownDates.has(name)).map((name) => [
          name,
          String(entry.fields[name]),
        ]),
      ),
    });
  const employees = seed.employees.map(record('employee', 'Employee'));
  const shifts = seed.shifts.map(record('shift', 'Shift'));
  return {
    restaurants: seed.restaurants,
    employees,
    shifts,
    byGuid: new Map([...employees, ...shifts].map((r) => [r.guid, r])),
  };
}

export function seedKnowledge(world: World): Knowledge {
  return new Map(
    [...world.employees, ...world.shifts].map((r) => [
      r.guid,
      { deleted: r.seedDeleted, dates: { ...r.seedDates }, fromSeed: true },
    ]),
  );
}

export function cloneKnowledge(knowledge: Knowledge): Knowledge {
  return new Map([...knowledge].map(([guid, s]) => [guid, { ...s, dates: { ...s.dates } }]));
}
