// What a run covered: the statuses each operation answered, beside those the spec declares; how
// many times each rule of the contract was checked; and the declared statuses the run never saw,
// with the reason when the kit cannot provoke them.
import { RULE_NAMES, type RuleName } from './rules.js';
import type { Spec } from './spec-reader.js';

/**
 * Declared statuses the kit cannot provoke from a healthy target, and why. Every other declared
 * status is one a default run reaches; one it did not see is a gap (`--min-coverage`).
 */
const UNREACHABLE_STATUSES: Readonly<Record<string, string>> = {
  '429':
    "too many requests: the kit keeps to the target's rate limits (--rate) and waits a 429 out; one it met would be counted",
  '500': 'an internal error: no request provokes it from a correct target (a 5xx fails the run)',
  '503':
    "storage unavailable: the kit cannot take the target's storage down, and a healthy target never answers it",
};

/** A declared status a run did not see. */
export interface UnseenStatus {
  readonly operationId: string;
  readonly status: string;
  /** Why the kit cannot provoke it; absent when it could and did not (a gap). */
  readonly reason?: string;
}

/** What a run covered (the `coverage` of a report). */
export interface Coverage {
  /**
   * By operationId: each status the spec declares and each one seen, with the answers of that
   * status the run got (0: declared, not seen).
   */
  readonly operations: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** By rule: the answers (or, for `unchanged-by-refusal`, the records read back) held to it. */
  readonly rules: Readonly<Record<RuleName, number>>;
  /** The declared statuses not seen, in the spec's order. */
  readonly unseen: readonly UnseenStatus[];
}

/** The tally of one run: answers by operation and status, checks by rule. */
export class CoverageTally {
  private readonly statuses = new Map<string, Map<string, number>>();
  private readonly rules = new Map<RuleName, number>();

  /** Counts an answer of `status` to a request of `operationId`. */
  answered(operationId: string, status: number): void {
    let counts = this.statuses.get(operationId);
    if (counts === undefined) {
      counts = new Map();
      this.statuses.set(operationId, counts);
    }
    counts.set(String(status), (counts.get(String(status)) ?? 0) + 1);
  }

  /** Counts a check of `rule`, kept or broken. */
  checked(rule: RuleName): void {
    this.rules.set(rule, (this.rules.get(rule) ?? 0) + 1);
  }

  /** The coverage so far, against what `spec` declares. */
  coverage(spec: Spec): Coverage {
    const operations: Record<string, Record<string, number>> = {};
    const unseen: UnseenStatus[] = [];
    for (const op of spec.operations) {
      const seen = this.statuses.get(op.id) ?? new Map<string, number>();
      const statuses = [...new Set([...op.responses.keys(), ...seen.keys()])].sort();
      operations[op.id] = Object.fromEntries(statuses.map((s) => [s, seen.get(s) ?? 0]));
      for (const status of op.responses.keys()) {
        if (seen.has(status)) continue;
        const reason = UNREACHABLE_STATUSES[status];
        unseen.push({ operationId: op.id, status, ...(reason === undefined ? {} : { reason }) });
      }
    }
    const rules = Object.fromEntries(RULE_NAMES.map((rule) => [rule, this.rules.get(rule) ?? 0]));
    return { operations, rules: rules as Record<RuleName, number>, unseen };
  }
}

/**
 * What keeps `coverage` from being full: each declared status the kit could provoke and did not
 * see, and each rule never checked. Empty when the run covered the contract.
 */
export function coverageGaps(coverage: Coverage): string[] {
  return [
    ...coverage.unseen
      .filter((u) => u.reason === undefined)
      .map((u) => `${u.operationId} never answered ${u.status}`),
    ...Object.entries(coverage.rules)
      .filter(([, count]) => count === 0)
      .map(([rule]) => `rule ${rule} never checked`),
  ];
}
