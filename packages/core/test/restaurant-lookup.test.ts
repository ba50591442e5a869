import {
  type Guid,
  parseGuid,
  type RestaurantQuery,
  restaurantToRead,
  visibleRestaurant,
} from '@workforce-kit/core';
import { aRestaurant, guidInputArb } from '@workforce-kit/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const live = aRestaurant();
const archived = aRestaurant({ general: { name: 'Closed', archived: true } });
const query = (over: Partial<RestaurantQuery> = {}): RestaurantQuery => ({
  contextGuid: live.guid,
  requested: live.guid,
  includeArchived: false,
  ...over,
});

describe('restaurantToRead', () => {
  it('reads the context restaurant, however the request spells its GUID', () => {
    expect(restaurantToRead(query({ requested: live.guid.toUpperCase() }))._unsafeUnwrap()).toBe(
      live.guid,
    );
  });

  it('does not read anything for a value that is not a GUID', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (requested) => {
        fc.pre(parseGuid(requested, 'restaurant').isErr());
        expect(restaurantToRead(query({ requested }))._unsafeUnwrapErr()).toEqual({
          type: 'RestaurantNotFound',
          requested,
          reason: 'malformed-guid',
        });
      }),
    );
  });

  it('does not read another restaurant than the context', () => {
    fc.assert(
      fc.property(guidInputArb, (requested) => {
        fc.pre(requested.toLowerCase() !== live.guid);
        expect(restaurantToRead(query({ requested }))._unsafeUnwrapErr().reason).toBe(
          'not-the-context',
        );
      }),
    );
  });
});

describe('visibleRestaurant', () => {
  it('shows the live context restaurant', () => {
    expect(visibleRestaurant(live, query())._unsafeUnwrap()).toBe(live);
  });

  it('hides a restaurant that was not found', () => {
    expect(visibleRestaurant(null, query())._unsafeUnwrapErr().reason).toBe('missing');
  });

  it('hides an archived restaurant unless includeArchived', () => {
    const context = { contextGuid: archived.guid, requested: archived.guid };
    expect(visibleRestaurant(archived, query(context))._unsafeUnwrapErr().reason).toBe('archived');
    expect(
      visibleRestaurant(archived, query({ ...context, includeArchived: true }))._unsafeUnwrap(),
    ).toBe(archived);
  });

  it('hides a restaurant of another context, even if a store returned it', () => {
    expect(
      visibleRestaurant(archived, query({ includeArchived: true }))._unsafeUnwrapErr().reason,
    ).toBe('not-the-context');
  });

  it('answers every not-found case alike but for the logged reason', () => {
    const errors = [
      restaurantToRead(query({ requested: 'nope' })),
      restaurantToRead(query({ requested: archived.guid })),
      visibleRestaurant(null, query()),
      visibleRestaurant(
        archived,
        query({ contextGuid: archived.guid as Guid, requested: archived.guid }),
      ),
    ].map((result) => {
      const { reason: _reason, requested: _requested, ...rest } = result._unsafeUnwrapErr();
      return rest;
    });
    expect(new Set(errors.map((e) => JSON.stringify(e))).size).toBe(1);
  });
});
