// The demo seed the kit's tests load their targets with, and the token settings of those targets:
// constants only, so that a process that needs them (the heap probe) loads nothing else.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEMO_SEED_FILE = fileURLToPath(
  new URL('../../../server/seed/demo-seed.json', import.meta.url),
);
export const demoSeedJson = JSON.parse(readFileSync(DEMO_SEED_FILE, 'utf8')) as Record<
  string,
  unknown
>;

export const SECRET = 'contract-testing-suite-secret-0123456789abcdef';
export const ISSUER = 'https://id.example.com/';
export const AUDIENCE = 'workforce-api';
export const AUTH = { hs256Secret: SECRET, issuer: ISSUER, audience: AUDIENCE } as const;
