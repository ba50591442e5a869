// The fetch adapter's examples of docs/embedding.md that run on a runtime of their own, run there
// and printing what the guide says they print: the Bun one on Bun, the Deno one on Deno (each
// type-checked with that runtime's types by examples/<runtime>/tsconfig.json), and the test in
// process with Node's test runner; and the NestJS app's and the Fastify app's tests (the contract
// kit in process), with Node's test runner too.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { examplesOf, readDocuments } from '../docs/documents.js';
import { commandOf, RUNTIME_ENV, type RuntimeName } from './apps.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const testDir = fileURLToPath(new URL('..', import.meta.url));
const guide = (await readDocuments()).find(({ path }) => path === 'docs/embedding.md');
const shown = guide === undefined ? [] : examplesOf(guide);

describe.each(['bun', 'deno'] as const)('the example on %s', (name: RuntimeName) => {
  const example = shown.find(({ path }) => path === `examples/${name}/embed-${name}.ts`);

  it('prints what docs/embedding.md says', async () => {
    expect(example?.output).toBeTruthy();
    const [command, args] = commandOf(name, `${root}${example?.path}`);
    const { stdout } = await run(command, args, { cwd: testDir, env: RUNTIME_ENV });
    expect(stdout).toBe(example?.output);
  });
});

/**
 * Runs an example test of docs/embedding.md with Node's test runner (through tsx, with the
 * examples' tsconfig.json: the NestJS app's decorators); what it printed, in TAP.
 */
async function nodeTest(example: string): Promise<string> {
  expect(shown.map(({ path }) => path)).toContain(example);
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=@workforce-kit/source',
      '--test',
      '--test-reporter=tap',
      `${root}${example}`,
    ],
    { cwd: testDir, env: { ...process.env, TSX_TSCONFIG_PATH: `${root}examples/tsconfig.json` } },
  );
  return stdout;
}

it("passes the in-process test of docs/embedding.md, with Node's test runner", async () => {
  const stdout = await nodeTest('examples/fetch-in-process.test.ts');
  expect(stdout).toMatch(/^# pass 1$/m);
  expect(stdout).toMatch(/^# fail 0$/m);
});

it("passes the NestJS app's test of docs/embedding.md, with Node's test runner", async () => {
  const stdout = await nodeTest('examples/embed-nestjs.test.ts');
  expect(stdout).toMatch(/^# pass 3$/m);
  expect(stdout).toMatch(/^# fail 0$/m);
});

it("passes the Fastify app's test of docs/embedding.md, with Node's test runner", async () => {
  const stdout = await nodeTest('examples/embed-fastify.test.ts');
  expect(stdout).toMatch(/^# pass 1$/m);
  expect(stdout).toMatch(/^# fail 0$/m);
});
