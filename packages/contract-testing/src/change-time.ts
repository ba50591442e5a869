// When a change answered over HTTP happened, by the target's own clock: the bound the dates a
// change sets (`modifiedDate`, `deletedDate`) must respect. The target's clock is not the kit's,
// and the two may be minutes apart. The answer's Date header (RFC 9110: whole seconds, the
// target's time when it answered, after the change) less the request's round trip is a time at or
// before the change by the target's clock, whatever the skew; DATE_TOLERANCE_MS more allows for a
// deployment whose parts keep time apart (a store that stamps dates with its database's clock).
// Without a Date header the kit's own clock stands in, allowing CLOCK_SKEW_MS between the two.
import { headerOf, type WireResponse } from './http-client.js';

/** The skew allowed between the clock that wrote an answer's Date and the one that dated the change. */
export const DATE_TOLERANCE_MS = 1000;
/** The skew allowed between the kit's clock and the target's, for an answer without a Date header. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** The earliest a change can have happened, by the target's clock. */
export interface ChangeTime {
  /** In ms since the epoch. */
  readonly earliest: number;
  /** How `earliest` was found, for messages. */
  readonly basis: string;
}

/** The earliest time, by the target's clock, of the change that `res` answers. */
export function changeTimeOf(res: WireResponse): ChangeTime {
  const header = headerOf(res, 'Date');
  const date = header === undefined ? Number.NaN : Date.parse(header);
  if (Number.isFinite(date)) {
    const roundTrip = Math.ceil(res.elapsedMs);
    return {
      earliest: date - roundTrip - DATE_TOLERANCE_MS,
      basis: `the answer's Date, ${header}, less the request's round trip of ${roundTrip} ms and ${DATE_TOLERANCE_MS} ms of tolerance`,
    };
  }
  return {
    earliest: res.sentAt - CLOCK_SKEW_MS,
    basis: `the kit's clock when it sent the request, less ${CLOCK_SKEW_MS / 60_000} minutes of clock skew (the answer has no Date header)`,
  };
}
