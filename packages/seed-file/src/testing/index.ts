/**
 * Test support for seeds: builders of seeds and login clients, and `seedToJson`, which writes a
 * seed back in the seed-file format (for seed files in tests). Builders of the records themselves
 * are the core's (`@workforce-kit/core/testing`).
 *
 * @packageDocumentation
 */
export { aClient, aSeed } from './builders.js';
export { seedToJson } from './seed-json.js';
