// Test only: a reference server process started with NODE_OPTIONS="--import <this file>" runs over
// the mutant of @workforce-kit/postgres in mutant-postgres.ts (see hooks.mjs). tsx loads the
// mutant's TypeScript, whether the server runs from its build or from its sources; it is
// registered last because the hooks registered last run first, so its loader sees the mutant.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

register('./hooks.mjs', import.meta.url);
registerTsx();
