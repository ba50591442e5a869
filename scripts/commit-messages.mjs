#!/usr/bin/env node
// Commit messages: a subject of at most 72 characters saying what changed, then, if there is a
// body, a blank line before it (docs/development.md, "Commits").
//
// `node scripts/commit-messages.mjs --file <path>`: the commit-msg hook (.githooks/commit-msg)
// checks the message being committed. `node scripts/commit-messages.mjs` (`pnpm commits:check`,
// part of `pnpm check`): every commit since CHECKED_SINCE that HEAD holds, merges aside, so that
// a clean clone in CI checks a branch's commits whether or not its hook ran.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The longest subject. */
export const MAX_SUBJECT = 72;

/**
 * The last commit not checked: the ones before it were written before the rule, with subjects of
 * a paragraph. Every commit HEAD holds that is not an ancestor of it is checked.
 */
export const CHECKED_SINCE = 'eced367261f1fb5c1b8b372b82b1db420bd6e8c3';

/** Subjects git makes, which are rewritten or generated rather than written. */
const GENERATED = /^(fixup!|squash!|amend!|Merge )/;

/**
 * What is wrong with a commit message (none when it is right). Lines git comments out (`#`) and
 * everything below its scissors line are not part of it.
 * @param {string} message
 * @returns {string[]}
 */
export function problemsOf(message) {
  const scissors = message.indexOf('# ------------------------ >8 ------------------------');
  const lines = (scissors < 0 ? message : message.slice(0, scissors))
    .split('\n')
    .filter((line) => !line.startsWith('#'));
  while (lines.length > 0 && lines[0]?.trim() === '') lines.shift();
  const [subject = '', second] = lines;
  if (subject.trim() === '') return ['the message has no subject'];
  if (GENERATED.test(subject)) return [];
  const problems = [];
  if (subject.length > MAX_SUBJECT) {
    problems.push(
      `the subject has ${subject.length} characters, more than ${MAX_SUBJECT}: say what changed, and put the detail in the body`,
    );
  }
  if (second !== undefined && second.trim() !== '') {
    problems.push('the subject is not followed by a blank line before the body');
  }
  return problems;
}

/**
 * The commits HEAD holds since CHECKED_SINCE, merges aside, oldest first. A shallow clone that
 * does not reach CHECKED_SINCE holds only later commits: all of those it has.
 * @param {string} cwd - the repository
 * @returns {{ hash: string, message: string }[]}
 */
export function commitsToCheck(cwd, since = CHECKED_SINCE) {
  const git = (/** @type {string[]} */ args) =>
    spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const known = git(['cat-file', '-e', `${since}^{commit}`]).status === 0;
  const range = known ? ['HEAD', `^${since}`] : ['HEAD'];
  const log = git(['log', '--reverse', '--no-merges', '--format=%H%x00%B%x00', ...range]);
  if (log.status !== 0) throw new Error(`git log failed: ${log.stderr}`);
  const fields = log.stdout.split('\0');
  const commits = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    commits.push({ hash: (fields[i] ?? '').trim(), message: fields[i + 1] ?? '' });
  }
  return commits;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--file');
  if (at >= 0) {
    const file = process.argv[at + 1];
    if (file === undefined) throw new Error('--file needs the path of the message');
    const problems = problemsOf(readFileSync(file, 'utf8'));
    for (const problem of problems) console.error(`commit message: ${problem}`);
    process.exit(problems.length === 0 ? 0 : 1);
  }
  let failed = 0;
  const commits = commitsToCheck(process.cwd());
  for (const { hash, message } of commits) {
    for (const problem of problemsOf(message)) {
      failed += 1;
      console.error(`${hash.slice(0, 10)} ${message.split('\n')[0]}\n  ${problem}`);
    }
  }
  console.log(`${commits.length} commit messages checked since ${CHECKED_SINCE.slice(0, 10)}`);
  process.exit(failed === 0 ? 0 : 1);
}
