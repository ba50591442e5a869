// The seed file a target was loaded with (docs/contract.md, "Seed file"), read with the seed
// parser of workforce-kit. This is the one module of the kit that knows where that parser lives.
import { readFile } from 'node:fs/promises';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';

/** A record of the seed as the kit sees it: plain JSON values, GUIDs in lower case. */
export interface SeedEntry {
  readonly restaurantGuid: string;
  readonly guid: string;
  readonly externalId?: string;
  readonly deleted: boolean;
  /** Every field the seed gives it, dates included, as the parser normalized them. */
  readonly fields: Readonly<Record<string, unknown>>;
  /**
   * The dates the seed file states. A date it leaves out is the target's load time, which the
   * kit cannot know.
   */
  readonly knownDates: ReadonlySet<string>;
}

export interface SeedRestaurantEntry {
  readonly guid: string;
  readonly archived: boolean;
  /** The restaurant in the form of the seed file and of the API (`RestaurantInfo`). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** What the kit learns from a seed file. */
export interface SeedData {
  readonly restaurants: readonly SeedRestaurantEntry[];
  readonly employees: readonly SeedEntry[];
  readonly shifts: readonly SeedEntry[];
}

/** A seed: the path of a seed file, or its parsed JSON. */
export type SeedInput = string | URL | { readonly [key: string]: unknown };

const DATE_FIELDS = ['createdDate', 'modifiedDate', 'deletedDate'];

function plain(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/**
 * Reads and checks a seed with the seed parser (the same rules the reference server applies).
 *
 * @throws an Error naming every bad entry when the seed does not match the format
 */
export async function loadSeed(input: SeedInput): Promise<SeedData> {
  let json: unknown = input;
  if (typeof input === 'string' || input instanceof URL) {
    const text = await readFile(input, 'utf8');
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`the seed file ${String(input)} is not JSON: ${(error as Error).message}`);
    }
  }
  // Parsed at two load times: a date that differs between them is the load time, not the file's.
  const first = parseSeed(json, new Date(Date.UTC(2000, 0, 1)));
  const second = parseSeed(json, new Date(Date.UTC(2001, 0, 1)));
  if (first.isErr())
    throw new Error(`the seed does not match the seed format:\n${formatSeedIssues(first.error)}`);
  if (second.isErr()) throw new Error(formatSeedIssues(second.error));
  const entries = (parsed: readonly object[], again: readonly object[]): SeedEntry[] =>
    parsed.map((entry, i) => {
      const record = plain(entry);
      const other = plain(again[i] ?? {});
      const { version: _version, ...fields } = record;
      return {
        restaurantGuid: String(record.restaurantGuid),
        guid: String(record.guid),
        ...(typeof record.externalId === 'string' ? { externalId: record.externalId } : {}),
        deleted: record.deleted === true,
        fields,
        knownDates: new Set(
          DATE_FIELDS.filter((name) => name in record && record[name] === other[name]),
        ),
      };
    });
  return {
    restaurants: first.value.restaurants.map((restaurant) => {
      const { schedules, ...rest } = plain(restaurant) as {
        schedules?: { daySchedules?: { identifier?: string; byKey: object } };
      };
      const daySchedules = schedules?.daySchedules;
      const fields =
        schedules === undefined
          ? rest
          : {
              ...rest,
              schedules: {
                ...schedules,
                ...(daySchedules === undefined
                  ? {}
                  : {
                      daySchedules: {
                        ...(daySchedules.identifier === undefined
                          ? {}
                          : { identifier: daySchedules.identifier }),
                        ...daySchedules.byKey,
                      },
                    }),
              },
            };
      return { guid: restaurant.guid, archived: restaurant.general.archived, fields };
    }),
    employees: entries(first.value.employees, second.value.employees),
    shifts: entries(first.value.shifts, second.value.shifts),
  };
}
