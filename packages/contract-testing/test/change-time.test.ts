// The earliest a change can have happened by the target's clock: from the answer's Date header
// (less the round trip and a second of tolerance), whatever the skew between the kit's clock and
// the target's; from the kit's clock, less five minutes of skew, when there is no Date header.
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, changeTimeOf, DATE_TOLERANCE_MS } from '../src/change-time.js';
import type { WireResponse } from '../src/http-client.js';

const answer = (headers: Record<string, string>, sentAt: number, elapsedMs: number) =>
  ({ status: 200, headers, text: '{}', sentAt, elapsedMs }) satisfies WireResponse;

describe('changeTimeOf', () => {
  it("takes the target's clock from the Date header, however far the kit's clock is", () => {
    const date = 'Tue, 03 Mar 2026 10:00:05 GMT';
    // The kit's clock is a day ahead of the target's: it does not matter.
    const kitNow = Date.parse(date) + 86_400_000;
    const time = changeTimeOf(answer({ date }, kitNow, 12.3));
    expect(time.earliest).toBe(Date.parse(date) - 13 - DATE_TOLERANCE_MS);
    expect(time.basis).toContain(date);
  });

  it("falls back on the kit's clock less the skew allowed when there is no Date header", () => {
    const sentAt = Date.parse('2026-03-03T10:00:05.500Z');
    expect(changeTimeOf(answer({}, sentAt, 4)).earliest).toBe(sentAt - CLOCK_SKEW_MS);
    expect(changeTimeOf(answer({ date: 'not a date' }, sentAt, 4)).earliest).toBe(
      sentAt - CLOCK_SKEW_MS,
    );
  });
});
