import { err, ok, type Result } from 'neverthrow';
import { type RestaurantNotFound, restaurantNotFound } from './errors.js';
import { type Guid, isGuid } from './identifiers.js';
import type { Restaurant } from './records.js';

/** A request for a restaurant's configuration, in the context of one restaurant. */
export interface RestaurantQuery {
  /** The context restaurant (already parsed). */
  readonly contextGuid: Guid;
  /** The restaurant asked for, as given; it need not be a GUID. */
  readonly requested: string;
  /** Whether an archived restaurant is returned. */
  readonly includeArchived: boolean;
}

/**
 * The first lookup rule: which restaurant to read, if any. A requested value that is not a GUID,
 * or that names another restaurant than the context, is not found without reading anything.
 *
 * @returns the GUID to read, or `RestaurantNotFound`
 */
export function restaurantToRead(query: RestaurantQuery): Result<Guid, RestaurantNotFound> {
  if (!isGuid(query.requested)) return err(restaurantNotFound(query.requested, 'malformed-guid'));
  if (!namesGuid(query.requested, query.contextGuid)) {
    return err(restaurantNotFound(query.requested, 'not-the-context'));
  }
  return ok(query.contextGuid);
}

/**
 * Whether a GUID as sent, in any letter case, is `guid`: the lower-case spelling most clients send
 * is compared as it is, with no lower-case copy made.
 */
function namesGuid(sent: string, guid: Guid): boolean {
  return sent === guid || sent.toLowerCase() === guid;
}

/**
 * The second lookup rule: whether what was read is visible. Nothing read, a restaurant of another
 * context, or an archived restaurant without `includeArchived` are all not found.
 *
 * @param found - what the repository returned for {@link restaurantToRead}'s GUID
 * @returns the restaurant, or `RestaurantNotFound`
 */
export function visibleRestaurant(
  found: Restaurant | null,
  query: RestaurantQuery,
): Result<Restaurant, RestaurantNotFound> {
  if (found === null) return err(restaurantNotFound(query.requested, 'missing'));
  if (found.guid !== query.contextGuid)
    return err(restaurantNotFound(query.requested, 'not-the-context'));
  if (found.general.archived && !query.includeArchived) {
    return err(restaurantNotFound(query.requested, 'archived'));
  }
  return ok(found);
}
