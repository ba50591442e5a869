import { describe, expect, it } from 'vitest';
import { isJsonMediaType } from '../src/media-type.js';

describe('isJsonMediaType, the 415 decision of every adapter', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json ; charset=utf-8',
    'application/json; foo=bar',
  ])('takes %j', (header) => {
    expect(isJsonMediaType(header)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'application/jsonx',
    'application/merge-patch+json',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    // Headers that do not parse: each adapter's own parsing once took some of them.
    'application/json;',
    'application/json; charset',
    'application/json; charset="utf-8',
    'application/json; =x',
    'application/json; a=b c',
    'application/json, text/plain',
  ])('refuses %j', (header) => {
    expect(isJsonMediaType(header)).toBe(false);
  });
});
