// The list of the slowest test files that `pnpm check` prints at its end
// (scripts/slowest-test-files.mjs): what the reporter notes of each file, and the list made of it;
// and the files vitest.config.ts schedules first.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import {
  readTimes,
  SLOWEST,
  SlowestFilesReporter,
  slowestFiles,
  TIMES_FILE,
} from '../../scripts/slowest-test-files.mjs';
import { LONGEST_FIRST } from '../../vitest.config.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A test module as the reporter reads it: where it is, and how long it took (ms). */
const moduleOf = (file: string, collectDuration: number, duration: number) =>
  ({
    moduleId: join(process.cwd(), file),
    diagnostic: () => ({ collectDuration, duration }),
  }) as unknown as TestModule;

it('names the slowest files, slowest first, with their times, out of all', () => {
  const times = Array.from({ length: 12 }, (_, i) => ({
    file: `test/f${i}.test.ts`,
    ms: i * 1000,
  }));
  const lines = slowestFiles(times).trim().split('\n');
  expect(lines[0]).toBe(`The ${SLOWEST} slowest test files of 12:`);
  expect(lines.slice(1)).toHaveLength(SLOWEST);
  expect(lines[1]).toBe('   11.0 s  test/f11.test.ts');
  expect(lines.at(-1)).toBe('    2.0 s  test/f2.test.ts');
});

it('notes each file of a run, its import and its tests, in the file runs share', () => {
  const dir = mkdtempSync(join(tmpdir(), 'workforce-kit-times-'));
  try {
    const path = join(dir, 'times.jsonl');
    vi.stubEnv(TIMES_FILE, path);
    const reporter = new SlowestFilesReporter();
    reporter.onTestRunEnd([moduleOf('a.test.ts', 100, 900)]);
    reporter.onTestRunEnd([moduleOf('b.test.ts', 50, 50), moduleOf('c/d.test.ts', 0, 2500)]);
    expect(readTimes(path)).toEqual([
      { file: 'a.test.ts', ms: 1000 },
      { file: 'b.test.ts', ms: 100 },
      { file: 'c/d.test.ts', ms: 2500 },
    ]);
    expect(readTimes(join(dir, 'none.jsonl'))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('schedules first test files that exist (vitest.config.ts, LONGEST_FIRST)', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  expect(LONGEST_FIRST.filter((file) => !existsSync(join(root, file)))).toEqual([]);
  expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
});
