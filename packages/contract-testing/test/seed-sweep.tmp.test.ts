import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import { it } from 'vitest';
import { MUTANTS } from './support/mutants.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

const SEEDS = Number(process.env.SWEEP_SEEDS ?? 5);
const FIRST = Number(process.env.SWEEP_FIRST ?? 1000);
it('sweeps seeds', async () => {
  const subjects = [
    { name: 'correct', hooks: {} },
    ...MUTANTS.map((m) => ({ name: m.name, hooks: m.hooks })),
  ];
  for (let s = 0; s < SEEDS; s++) {
    const rngSeed = FIRST + s * 104729;
    for (const subject of subjects) {
      const target = await routerTarget(subject.hooks);
      const report = await checkApiContract({
        target: { handler: target.handler, reset: () => target.reset() },
        seed: demoSeedJson,
        auth: AUTH,
        rngSeed,
      });
      const failed = report.results.filter((r) => r.status === 'failed');
      const bad =
        subject.name === 'correct'
          ? failed.length > 0
          : failed.length === 0 || failed.some((r) => r.rule === 'error');
      console.log(
        `${bad ? 'BAD ' : 'ok  '} seed ${rngSeed} ${subject.name}: ${failed.map((r) => `${r.name}(${r.rule})`).join(',')}`,
      );
      if (bad && subject.name === 'correct') console.log(formatReport(report));
    }
  }
}, 3_600_000);
