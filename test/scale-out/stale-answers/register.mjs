// Test only: a reference server process started with NODE_OPTIONS="--import <this file>" runs over
// the mutant of @workforce-kit/postgres in mutant-postgres.ts (see hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
