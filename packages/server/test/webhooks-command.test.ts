// `workforce-kit webhooks status|redrive|purge|retire`: what it refuses before it touches a store. Its work on
// a PostgreSQL server (a dead letter's status and re-drive) is shown by test/webhooks/.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDirectory } from '@workforce-kit/postgres';
import { describe, expect, it } from 'vitest';
import { webhooksCommand } from '../src/webhooks-command.js';

async function run(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = await webhooksCommand(
    args,
    { STORE: 'postgres', DATABASE_URL: 'postgres://x@127.0.0.1:1/x', ...env },
    (line) => {
      lines.push(line);
    },
  );
  return { code, output: lines.join('\n') };
}

describe('workforce-kit webhooks', () => {
  it('shows its usage, exit 2, for no command, an unknown one, an unknown option, retire without a destination, purge without what to purge or with --all and more', async () => {
    for (const args of [
      [],
      ['resend'],
      ['status', 'extra'],
      ['redrive', '--all'],
      ['retire'],
      ['purge'],
      ['purge', '--all', '--destination', 'https://a.example.com/hook'],
      ['purge', '--all', '--event', '3f0c8a1e-6b2d-4c5e-9f7a-1b2c3d4e5f60'],
    ]) {
      const { code, output } = await run(args);
      expect(code).toBe(2);
      expect(output).toContain('usage: workforce-kit webhooks status');
    }
  });

  it('refuses an --event that is not an event id, and the memory store, before opening anything', async () => {
    expect(await run(['redrive', '--event', 'employee.archived'])).toEqual({
      code: 2,
      output: '--event takes event ids (the webhook-id of a delivery); not one: employee.archived',
    });
    const memory = await run(['status'], { STORE: 'memory' });
    expect(memory.code).toBe(2);
    expect(memory.output).toContain('STORE=memory keeps no webhook deliveries');
  });

  it('says to stop the server first when its PGlite directory is in use', async () => {
    const dir = join(tmpdir(), `workforce-kit-webhooks-command-${randomUUID()}`);
    mkdirSync(dir, { recursive: true });
    const lock = lockDirectory(dir);
    try {
      const { code, output } = await run(['status'], { STORE: 'pglite', PGLITE_DIR: dir });
      expect(code).toBe(1);
      expect(output).toMatch(/^pglite \(.*\) is in use \(.*\): stop the server first$/);
    } finally {
      lock.release();
    }
  });

  it('is exit 1, naming the store, when the database cannot be reached', async () => {
    const { code, output } = await run(['redrive']);
    expect(code).toBe(1);
    expect(output).toMatch(/^postgres \(postgres:\/\/x@127\.0\.0\.1:1\/x\): .*ECONNREFUSED/);
  });
});
