// What a run covered: the statuses each operation answered, beside those the spec declares; how
// many times each rule of the contract was checked; the declared statuses the run never saw,
// with the reason when the kit cannot provoke them; and how often each property's changes ran
// against a record they change, with a warning where the seed left too few (change-evidence.ts).
import {
  CHANGE_ROLES,
  type ChangeCount,
  type ChangeRole,
  type PropertyRan,
  type ThinEvidence,
  thinEvidence,
} from './change-evidence.js';
import type { PropertyGroup } from './property-groups.js';
import { EVENT_RULES, FAULT_ONLY_RULES, RULE_NAMES, type RuleName } from './rules.js';
import type { Spec, SpecOperation } from './spec-reader.js';
import type { Role } from './state-table-operations.js';
import type { World } from './world.js';

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
  /**
   * By rule: the answers (or, for `unchanged-by-refusal`, the records read back; for the rules of
   * events, the events or the calls) held to it. The rules of events are there when the run
   * checked events, those its source's events can be held to.
   */
  readonly rules: Readonly<Partial<Record<RuleName, number>>>;
  /** The declared statuses not seen, in the spec's order. */
  readonly unseen: readonly UnseenStatus[];
  /**
   * By property, in the order they ran, for each operation that changes a record and that it
   * sent to one: how often its calls reached a record, and how often they changed it.
   */
  readonly changes: Readonly<Record<string, Readonly<Record<string, ChangeCount>>>>;
  /** Each kind of change a group about changes ran too few times, for want of records in the seed. */
  readonly thinEvidence: readonly ThinEvidence[];
}

/** The tally of one run: answers by operation and status, checks by rule, changes by property. */
export class CoverageTally {
  private readonly statuses = new Map<string, Map<string, number>>();
  private readonly rules = new Map<RuleName, number>();
  /** The properties that ran, in their order (the last one may be running). */
  private readonly ran = new Map<string, PropertyRan>();
  private readonly changes = new Map<
    string,
    Map<ChangeRole, { reached: number; changed: number }>
  >();
  private property: string | undefined;
  /** The rules of events this run checks: none unless it was given events. */
  private eventRules: ReadonlySet<RuleName> = new Set();

  /**
   * @param world - the seed's records, which the changes are weighed against
   * @param operations - the operations of the state tables
   */
  constructor(
    private readonly world: World,
    private readonly operations: Readonly<Record<Role, SpecOperation>>,
  ) {}

  /** The run checks events: the rules of events its source's events can be held to count. */
  checksEvents(rules: readonly RuleName[]): void {
    this.eventRules = new Set(rules);
  }

  /** Counts what follows for the property `name` of `group`, which makes `runs` runs. */
  startProperty(name: string, group: PropertyGroup, runs: number): void {
    this.ran.set(name, { group, runs, passed: false });
    this.property = name;
  }

  /** The property running held: its changes are weighed ({@link Coverage.thinEvidence}). */
  propertyPassed(): void {
    const ran = this.property === undefined ? undefined : this.ran.get(this.property);
    if (ran !== undefined) ran.passed = true;
  }

  /** Counts a call of `role` that reached a record, and whether it changed it (the model says). */
  reachedRecord(role: ChangeRole, changed: boolean): void {
    const count = this.changeCount(role);
    count.reached++;
    if (changed) count.changed++;
  }

  /** Counts a call of `role` that changed its record, already counted as reaching it. */
  changedRecord(role: ChangeRole): void {
    this.changeCount(role).changed++;
  }

  private changeCount(role: ChangeRole) {
    const property = this.property ?? '';
    let byRole = this.changes.get(property);
    if (byRole === undefined) {
      byRole = new Map();
      this.changes.set(property, byRole);
    }
    let count = byRole.get(role);
    if (count === undefined) {
      count = { reached: 0, changed: 0 };
      byRole.set(role, count);
    }
    return count;
  }

  /** Counts an answer of `status` to a request of `operationId`. */
  answered(operationId: string, status: number): void {
    let counts = this.statuses.get(operationId);
    if (counts === undefined) {
      counts = new Map();
      this.statuses.set(operationId, counts);
    }
    counts.set(String(status), (counts.get(String(status)) ?? 0) + 1);
  }

  /** Counts `times` checks of `rule` (one by default), kept or broken. */
  checked(rule: RuleName, times = 1): void {
    this.rules.set(rule, (this.rules.get(rule) ?? 0) + times);
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
    const events = new Set<RuleName>(EVENT_RULES);
    const rules = Object.fromEntries(
      RULE_NAMES.filter((rule) => !events.has(rule) || this.eventRules.has(rule)).map((rule) => [
        rule,
        this.rules.get(rule) ?? 0,
      ]),
    );
    const operationIdOf = (role: ChangeRole) => this.operations[role].id;
    const changes = Object.fromEntries(
      [...this.changes].map(([property, byRole]) => [
        property,
        Object.fromEntries(
          CHANGE_ROLES.flatMap((role) => {
            const count = byRole.get(role);
            return count === undefined ? [] : [[operationIdOf(role), { ...count }]];
          }),
        ),
      ]),
    );
    const none: ChangeCount = { reached: 0, changed: 0 };
    const count = (property: string, role: ChangeRole) =>
      this.changes.get(property)?.get(role) ?? none;
    return {
      operations,
      rules,
      unseen,
      changes,
      thinEvidence: thinEvidence(this.ran, count, this.world, operationIdOf),
    };
  }
}

/**
 * What keeps `coverage` from being full: each declared status the kit could provoke and did not
 * see, each rule never checked, and each kind of change a group about changes ran too few times
 * for want of records in the seed. Empty when the run covered the contract.
 */
export function coverageGaps(coverage: Coverage): string[] {
  return [
    ...coverage.unseen
      .filter((u) => u.reason === undefined)
      .map((u) => `${u.operationId} never answered ${u.status}`),
    ...Object.entries(coverage.rules)
      .filter(([rule, count]) => count === 0 && !FAULT_ONLY_RULES.has(rule as RuleName))
      .map(([rule]) => `rule ${rule} never checked`),
    ...coverage.thinEvidence.map((thin) => thin.message),
  ];
}
