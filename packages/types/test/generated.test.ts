import { describe, expect, it } from 'vitest';
import { findDrift } from '../scripts/generate.js';

describe('generated types', () => {
  it('match what openapi/openapi.yaml generates (run `pnpm generate` after a spec change)', async () => {
    expect(await findDrift()).toEqual([]);
  }, 60_000);
});
