// The failures of a run in the order a reader should take them: the one that shows the fault most
// directly first. One store bug often breaks several properties, some of them only by what it
// left behind; the first failure should be the one that names it.

import type { PropertyResult } from './property-runner.js';

/**
 * How indirect a failure's evidence is, most direct first: the kit's own error last; then a
 * failure that did not reproduce on replay (it depends on the target's history); then one found by
 * reading a record back after a refused request rather than in an answer of the failing case.
 */
const indirectness = (result: PropertyResult): readonly number[] => [
  result.rule === 'error' ? 1 : 0,
  result.reproduced === false ? 1 : 0,
  result.readBack ? 1 : 0,
];

/** The failed results, the most direct evidence of a fault first, else in their run order. */
export function causeFirst(results: readonly PropertyResult[]): PropertyResult[] {
  const ranked = results
    .filter((result) => result.status === 'failed')
    .map((result, order) => ({ result, order, rank: indirectness(result) }));
  ranked.sort((a, b) => {
    for (const [i, rank] of a.rank.entries()) {
      const difference = rank - (b.rank[i] ?? 0);
      if (difference !== 0) return difference;
    }
    return a.order - b.order;
  });
  return ranked.map(({ result }) => result);
}
