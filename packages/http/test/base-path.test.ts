import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basePathOf, underBasePath } from '../src/base-path.js';

describe('a base path', () => {
  it.each([
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['/api', '/api'],
    ['/api/', '/api'],
    ['/api/workforce', '/api/workforce'],
  ])('%s is the prefix %j', (given, prefix) => {
    expect(basePathOf(given)).toBe(prefix);
  });

  it.each(['api', '/api?x=1', '/api#top'])('%s is refused, naming the setting', (given) => {
    expect(() => basePathOf(given, 'path')).toThrow(/^path must be a path starting with '\/'/);
  });

  it.each([
    ['/api/labor/v1/shifts/x', '/labor/v1/shifts/x'],
    ['/api/labor/v1/shifts/x?y=1', '/labor/v1/shifts/x?y=1'],
    ['/api', '/'],
    ['/api?x', '/?x'],
    ['/apiary/labor/v1/shifts/x', undefined],
    ['/labor/v1/shifts/x', undefined],
    ['/API/labor/v1/shifts/x', undefined],
  ])('the target %s is %s under /api', (target, relative) => {
    expect(underBasePath(target, '/api')).toBe(relative);
  });

  it('leaves every target as it is under the root', () => {
    fc.assert(fc.property(fc.string(), (target) => underBasePath(target, '') === target));
  });

  it('gives back what was joined under it', () => {
    const segment = fc.stringMatching(/^[a-z0-9%.-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 3 }), segment, (base, rest) => {
        const prefix = `/${base.join('/')}`;
        return underBasePath(`${prefix}/${rest}`, basePathOf(prefix)) === `/${rest}`;
      }),
    );
  });
});
