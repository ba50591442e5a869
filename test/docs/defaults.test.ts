// The defaults a user meets first, as the pages that show the options state them: the rate limits
// of an embedded API (a contract run or a load test waits out their 429s).
import { readFile } from 'node:fs/promises';
import { RATE_LIMIT_DEFAULTS } from '@workforce-kit/http';
import { describe, expect, it } from 'vitest';
import { root } from './documents.js';

const PAGES = [
  'docs/embedding.md',
  'packages/express-adapter/README.md',
  'packages/fastify-adapter/README.md',
  'packages/fetch-adapter/README.md',
  'packages/nestjs/README.md',
  'packages/node-adapter/README.md',
  'packages/http/README.md',
];

/** 10000 as the pages write it: 10,000. */
const written = (n: number) => n.toLocaleString('en-US');

describe.each(PAGES)('%s', (page) => {
  it('names the default rate limits where it shows the options', async () => {
    const text = (await readFile(new URL(page, root), 'utf8')).replace(/\s+/g, ' ');
    const { perSecond, per15Minutes } = RATE_LIMIT_DEFAULTS;
    expect(text).toMatch(
      new RegExp(
        `\\b${written(perSecond)} (requests )?a second and ${written(per15Minutes)} per 15 minutes per restaurant`,
      ),
    );
  });
});
