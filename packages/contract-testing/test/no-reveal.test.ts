// The no-reveal rule looks for another restaurant's texts in an answer as whole tokens: a random
// request id or timestamp that happens to contain the digits of another restaurant's external id
// is not a leak (CI once failed on "10042" inside a request id), the id itself in a body is.
import { describe, expect, it } from 'vitest';
import { mentionsToken } from '../src/no-reveal.js';

describe('mentionsToken', () => {
  it('finds a text standing on its own', () => {
    expect(mentionsToken('{"externalid":"10042"}', '10042')).toBe(true);
    expect(mentionsToken('10042', '10042')).toBe(true);
    expect(mentionsToken('no such employee 10042.', '10042')).toBe(true);
    expect(
      mentionsToken(
        '"b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b"',
        'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b',
      ),
    ).toBe(true);
  });

  it('does not find it inside a longer run of letters and digits', () => {
    expect(mentionsToken('"requestid":"f1ac9569-3b10042e-…"', '10042')).toBe(false);
    expect(mentionsToken('a100421', '10042')).toBe(false);
    expect(mentionsToken('ümlaut10042', '10042')).toBe(false);
  });

  it('finds a later standalone occurrence after an embedded one', () => {
    expect(mentionsToken('x10042 and 10042', '10042')).toBe(true);
  });
});
