// The request id: the client's kept when sane, else a new version 4 UUID made from random bytes
// drawn in bulk (compared with crypto.randomUUID's).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newUuid, requestIdFrom } from '../src/request-id.js';

/** A version 4 UUID of RFC 9562, in lower case, as `crypto.randomUUID` makes them. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it("keeps the client's id when it is printable ASCII of at most 128 characters", () => {
    expect(requestIdFrom('checkout-retry-2')).toBe('checkout-retry-2');
    expect(requestIdFrom('a'.repeat(128))).toBe('a'.repeat(128));
    expect(requestIdFrom('with inner spaces')).toBe('with inner spaces');
  });

  it('makes a new UUID for no id, an empty, long, padded or non-ASCII one, or several', () => {
    for (const incoming of [
      undefined,
      '',
      'a'.repeat(129),
      ' padded',
      'padded ',
      'tab\there',
      'café',
      ['one', 'two'],
    ]) {
      expect(requestIdFrom(incoming)).toMatch(UUID_V4);
    }
  });
});

describe('newUuid', () => {
  it('makes version 4 UUIDs, all different, across many refills of its random bytes', () => {
    const ids = Array.from({ length: 10_000 }, () => newUuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives each hex digit outside the version and variant about as often as crypto.randomUUID's do", () => {
    // Per position, the 16 digits' counts over 4,096 ids: each about 256. A byte written to the
    // wrong place, or a digit stuck (a table's error), puts a count at 0 or 512, far outside
    // 256 ± 100 (6.5 standard deviations: a chance failure is below one in a million runs).
    const counts = (make: () => string) => {
      const perPosition = Array.from({ length: 36 }, () => new Map<string, number>());
      for (let n = 0; n < 4096; n++) {
        const id = make();
        for (let i = 0; i < 36; i++) {
          const map = perPosition[i] as Map<string, number>;
          map.set(id[i] as string, (map.get(id[i] as string) ?? 0) + 1);
        }
      }
      return perPosition;
    };
    const ours = counts(newUuid);
    const node = counts(randomUUID);
    for (let i = 0; i < 36; i++) {
      const mine = ours[i] as Map<string, number>;
      // The same digits occur at each position (dashes, the version's 4, the variant's 8-b).
      expect([...mine.keys()].sort()).toEqual([...(node[i] as Map<string, number>).keys()].sort());
      if (mine.size === 16) {
        for (const count of mine.values()) expect(Math.abs(count - 256)).toBeLessThan(100);
      }
    }
  });
});
