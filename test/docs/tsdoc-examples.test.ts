// The check of the TSDoc examples (scripts/check-tsdoc-examples.mjs, run by `pnpm typecheck`)
// refuses a broken example: a fixture package whose examples misuse its API, call it with a value
// of the wrong type from its prelude, or give no code, fails it with the file, the line in the
// source and the compiler's message; its one sound example passes.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkTsdocExamples, formatFailure } from '../../scripts/check-tsdoc-examples.mjs';
import { root } from './documents.js';

const fixture = fileURLToPath(new URL('test/docs/fixtures/tsdoc/', root));
const script = fileURLToPath(new URL('scripts/check-tsdoc-examples.mjs', root));
const EXPECTED = [
  'packages/demo/src/index.ts:36:1 - this @example has no ```ts block to check',
  "packages/demo/src/index.ts:25:10 - TS2322: Type 'number' is not assignable to type 'string'.",
  "packages/demo/src/index.ts:26:12 - TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.",
];

describe('the check of the TSDoc examples', () => {
  it('names each broken example by its line in the source, with the compiler message', () => {
    const { checked, failures } = checkTsdocExamples(fixture);
    expect(checked).toBe(2);
    expect(failures.map(formatFailure)).toEqual(EXPECTED);
  });

  it('fails the command', async () => {
    const run = promisify(execFile)(process.execPath, [script, fixture]);
    await expect(run).rejects.toMatchObject({ code: 1 });
    const { stderr } = await run.catch((error: { stderr: string }) => error);
    for (const line of EXPECTED) expect(stderr).toContain(line);
  }, 60_000);
});
