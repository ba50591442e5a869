import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../src/redacted-url.js';

describe('a URL as it is logged', () => {
  it.each([
    ['/a?access_token=eyJhbGciOi.x.y', '/a?access_token=[redacted]'],
    ['/a?x=1&ACCESS_TOKEN=abc&y=2', '/a?x=1&ACCESS_TOKEN=[redacted]&y=2'],
    ['/a?access%5Ftoken=abc', '/a?access%5Ftoken=[redacted]'],
    [
      '/a?client_secret=s3cret&grant_type=client_credentials',
      '/a?client_secret=[redacted]&grant_type=client_credentials',
    ],
    ['/a?token', '/a?token=[redacted]'],
    ['/a?includeArchived=true', '/a?includeArchived=true'],
    ['/a', '/a'],
    ['/a?%E0%A4%A=1', '/a?%E0%A4%A=1'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactedUrl(url)).toBe(logged);
  });

  it('never carries the value of an access_token, whatever else the query holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), fc.string())),
        fc.stringMatching(/^[A-Za-z0-9._-]{8,40}$/),
        fc.nat(),
        (others, secret, at) => {
          const pairs = others.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
          pairs.splice(at % (pairs.length + 1), 0, `access_token=${secret}`);
          const logged = redactedUrl(`/p?${pairs.join('&')}`);
          const withoutOthers = others.some(([k, v]) => k.includes(secret) || v.includes(secret));
          if (!withoutOthers) expect(logged).not.toContain(secret);
        },
      ),
    );
  });
});
