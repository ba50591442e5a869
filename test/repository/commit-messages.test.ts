// The rule on commit messages, held in the repository: the commit-msg hook that `pnpm install`
// sets up (scripts/git-hooks.mjs, .githooks/commit-msg) and the check of a branch's commits that
// `pnpm check` runs (scripts/commit-messages.mjs), each shown on a real git repository made here.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commitsToCheck, problemsOf } from '../../scripts/commit-messages.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A folder of its own for one test. */
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'workforce-kit-commits-'));
  made.push(dir);
  return dir;
}

const identity = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

function git(cwd: string, ...args: string[]) {
  return spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...identity } });
}

/** Commits an empty change with `message`; whether git took it, and what it said. */
function commit(cwd: string, message: string) {
  const done = git(cwd, 'commit', '--allow-empty', '-q', '-m', message);
  return { ok: done.status === 0, said: done.stderr };
}

/** A repository holding the hook and the scripts, as a clone of this one does. */
function repository(): string {
  const dir = folder();
  git(dir, 'init', '-q', '-b', 'main');
  cpSync(join(root, '.githooks'), join(dir, '.githooks'), { recursive: true });
  for (const script of ['commit-messages.mjs', 'git-hooks.mjs']) {
    cpSync(join(root, 'scripts', script), join(dir, 'scripts', script));
  }
  return dir;
}

const LONG = 'a subject that says everything at once, the detail and the figures, 81 chars';

describe('a commit message', () => {
  it('has a subject of at most 72 characters, then a blank line before its body', () => {
    expect(problemsOf('http: the pipeline as a list of steps\n\nWhy, and the figures.\n')).toEqual(
      [],
    );
    expect(problemsOf(`${'x'.repeat(72)}\n`)).toEqual([]);
    expect(problemsOf(`${'x'.repeat(73)}\n`)).toEqual([
      expect.stringContaining('73 characters, more than 72'),
    ]);
    expect(problemsOf('a subject\nthe body at once\n')).toEqual([
      'the subject is not followed by a blank line before the body',
    ]);
    expect(problemsOf('\n# only a comment\n')).toEqual(['the message has no subject']);
  });

  it("leaves out git's comments and what is below its scissors, and the subjects git makes", () => {
    const scissors = '# ------------------------ >8 ------------------------';
    expect(
      problemsOf(`a subject\n# ${'x'.repeat(100)}\n${scissors}\n${'y'.repeat(100)}\n`),
    ).toEqual([]);
    expect(problemsOf(`fixup! ${LONG}\n`)).toEqual([]);
    expect(problemsOf(`Merge branch '${'b'.repeat(80)}' into main\n`)).toEqual([]);
  });
});

describe('the commit-msg hook', () => {
  it('is set up by the install and refuses a long subject, keeping the right ones', () => {
    const dir = repository();
    expect(spawnSync('node', ['scripts/git-hooks.mjs'], { cwd: dir }).status).toBe(0);
    expect(git(dir, 'config', 'core.hooksPath').stdout.trim()).toBe('.githooks');
    const refused = commit(dir, LONG);
    expect(refused.ok).toBe(false);
    expect(refused.said).toContain('more than 72');
    expect(commit(dir, 'a subject\n\nand a body that may be as long as it needs to be').ok).toBe(
      true,
    );
    expect(git(dir, 'log', '--format=%s').stdout.trim()).toBe('a subject');
  });

  it('is not set up, and the install does not fail, outside a git checkout', () => {
    const dir = folder();
    cpSync(join(root, 'scripts', 'git-hooks.mjs'), join(dir, 'scripts', 'git-hooks.mjs'));
    const install = spawnSync('node', ['scripts/git-hooks.mjs'], {
      cwd: dir,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: dir },
    });
    expect(install.status).toBe(0);
    expect(git(dir, 'rev-parse', '--git-dir').status).not.toBe(0);
  });
});

describe("the check of a branch's commits", () => {
  /** A history: an old long subject (the base), then the branch's commits, with a merge. */
  function history(): { dir: string; base: string } {
    const dir = folder();
    git(dir, 'init', '-q', '-b', 'main');
    commit(dir, `${LONG}, written before the rule`);
    const base = git(dir, 'rev-parse', 'HEAD').stdout.trim();
    commit(dir, 'a right subject');
    git(dir, 'checkout', '-q', '-b', 'other');
    commit(dir, LONG);
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--no-ff', '--no-edit', 'other');
    return { dir, base };
  }

  it('checks every commit since its base, on any branch merged in, merges aside', () => {
    const { dir, base } = history();
    const commits = commitsToCheck(dir, base);
    expect(commits.map(({ message }) => message.trim()).sort()).toEqual(
      ['a right subject', LONG].sort(),
    );
    expect(commits.flatMap(({ message }) => problemsOf(message))).toHaveLength(1);
  });

  it('checks all the commits a shallow clone has when it does not reach the base', () => {
    const { dir, base } = history();
    const shallow = folder();
    const clone = spawnSync(
      'git',
      ['clone', '-q', '--depth', '1', '--no-single-branch', `file://${dir}`, shallow],
      { encoding: 'utf8' },
    );
    expect(clone.status).toBe(0);
    expect(git(shallow, 'cat-file', '-e', base).status).not.toBe(0);
    const commits = commitsToCheck(shallow, base);
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.every(({ message }) => !message.includes('written before the rule'))).toBe(true);
  });

  it("passes on this repository's commits since CHECKED_SINCE", () => {
    const check = spawnSync('node', ['scripts/commit-messages.mjs'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});

it('checks a message file as the hook is given it', () => {
  const file = join(folder(), 'COMMIT_EDITMSG');
  writeFileSync(file, `${LONG}\n\n# Please enter the commit message for your changes.\n`);
  const check = spawnSync('node', [join(root, 'scripts', 'commit-messages.mjs'), '--file', file], {
    encoding: 'utf8',
  });
  expect(check.status).toBe(1);
  expect(check.stderr).toContain('more than 72');
});
