// The test files that took longest: a vitest reporter that notes how long each file of a run took,
// and the list of the slowest that `pnpm check` (so `npm test`) prints at its end, so that a file
// that became slow is seen the day it lands.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** How many files the list names. */
export const SLOWEST = 10;

/**
 * The file that runs append their files' times to, when set (`pnpm check` sets it, and prints the
 * list once its runs are over); unset, a run of more than {@link SLOWEST} files prints its own.
 */
export const TIMES_FILE = 'WORKFORCE_KIT_TEST_TIMES';

/** @typedef {{ file: string, ms: number }} FileTime */
/** @typedef {import('vitest/node').Reporter} Reporter */

/**
 * Notes each test file's time in its worker: importing it (collecting its tests) and running its
 * tests and hooks.
 * @implements {Reporter}
 */
export class SlowestFilesReporter {
  /** @param {ReadonlyArray<import('vitest/node').TestModule>} modules */
  onTestRunEnd(modules) {
    /** @type {FileTime[]} */
    const times = modules.map((module) => {
      const { collectDuration, duration } = module.diagnostic();
      return { file: relative(process.cwd(), module.moduleId), ms: collectDuration + duration };
    });
    const path = process.env[TIMES_FILE];
    if (path !== undefined && path !== '') {
      appendFileSync(path, times.map((time) => `${JSON.stringify(time)}\n`).join(''));
    } else if (times.length > SLOWEST) {
      process.stdout.write(slowestFiles(times));
    }
  }
}

/**
 * The times a file of {@link TIMES_FILE} holds (none when it is missing).
 * @param {string} path
 * @returns {FileTime[]}
 */
export function readTimes(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/**
 * The {@link SLOWEST} slowest files, slowest first, one a line.
 * @param {readonly FileTime[]} times
 */
export function slowestFiles(times) {
  const slowest = [...times].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  const lines = slowest.map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
  return `\nThe ${slowest.length} slowest test files of ${times.length}:\n${lines.join('\n')}\n`;
}
