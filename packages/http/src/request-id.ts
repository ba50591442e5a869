import { randomFillSync } from 'node:crypto';

/** An incoming X-Request-Id is kept when it is printable ASCII of at most 128 characters. */
const SANE_REQUEST_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/** New ids made from one fill of random bytes (16 bytes each): one call to the CSPRNG per 256. */
const IDS_PER_FILL = 256;
const randomBytes = Buffer.allocUnsafeSlow(16 * IDS_PER_FILL);
/** Ids taken from `randomBytes` since its last fill (all of them at first: filled on first use). */
let taken = IDS_PER_FILL;
/** One id's text, written here and read out as one string. */
const text = Buffer.allocUnsafeSlow(36);
/** The hex digits of each byte value, as character codes: high nibble, low nibble. */
const HIGH = new Uint8Array(256);
const LOW = new Uint8Array(256);
for (let byte = 0; byte < 256; byte++) {
  HIGH[byte] = '0123456789abcdef'.charCodeAt(byte >> 4);
  LOW[byte] = '0123456789abcdef'.charCodeAt(byte & 15);
}
/** Where each of the 16 bytes' two digits go in `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
text.fill('-');

/**
 * A new random UUID (version 4, RFC 9562), as `crypto.randomUUID()` makes one (a request's id, an
 * event's): 122 bits from the
 * CSPRNG, so ids do not collide across processes and restarts and cannot be guessed from one
 * another. Made for less than `randomUUID` costs per request (one 36-character string, against
 * the concatenation of 20 pieces): the random bytes are drawn 4 KiB at a time and the text is
 * written into one buffer, read out once.
 */
export function newUuid(): string {
  if (taken === IDS_PER_FILL) {
    randomFillSync(randomBytes);
    taken = 0;
  }
  const start = taken * 16;
  taken += 1;
  for (let i = 0; i < 16; i++) {
    let byte = randomBytes[start + i] as number;
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // variant 10xx
    const at = DIGITS_AT[i] as number;
    text[at] = HIGH[byte] as number;
    text[at + 1] = LOW[byte] as number;
  }
  return text.toString('latin1');
}

/**
 * The id of a request: the client's `X-Request-Id` when it is printable ASCII of at most 128
 * characters, otherwise a new random UUID (version 4). It goes back in the response's
 * `X-Request-Id`, in every problem's `requestId`, and on every log line of the request.
 *
 * @param incoming - the request's `X-Request-Id` header, as Node gives it
 * @returns the client's id when it is sane, else a new UUID
 * @example
 * ```ts
 * requestIdFrom(req.headers['x-request-id']); // 'checkout-retry-2', or a new UUID
 * ```
 */
export function requestIdFrom(incoming: string | readonly string[] | undefined): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : newUuid();
}
