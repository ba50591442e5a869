/**
 * Property-test a deployment of the workforce-kit API against its OpenAPI contract, over HTTP:
 * requests generated from the spec (valid and invalid), sequences over a model of the seed's
 * state tables, bad tokens and missing grants, and isolation between restaurants. Failures shrink
 * to a minimal run, printed as curl commands that replay it; every report says what the run
 * covered (statuses by operation, checks by rule, declared statuses never seen and why, the changes
 * each property ran and where the seed left too few). The same engine runs as the
 * `workforce-kit-contract` command and, for vitest, as `describeApiContract` from
 * `@workforce-kit/contract-testing/vitest`.
 *
 * @example
 * ```ts
 * import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
 *
 * const report = await checkApiContract({ target: 'http://127.0.0.1:8080', seed: 'seed.json', auth: { hs256Secret } });
 * console.log(formatReport(report));
 * ```
 *
 * @packageDocumentation
 */

export type { ChangeCount, ThinEvidence } from './change-evidence.js';
export {
  type ContractOptions,
  checkApiContract,
  type Report,
} from './check-api-contract.js';
export type { RacePhase, RaceRecord } from './concurrent-history.js';
export type { Coverage, UnseenStatus } from './coverage.js';
export { toHtmlReport } from './html-report.js';
export { GROUPS, type PropertyGroup } from './property-groups.js';
export type { PropertyResult } from './property-runner.js';
export type { RaceCallReport, RaceReport } from './race-report.js';
export type { ChangeAnswer, ChangeKind } from './record-model.js';
export {
  formatCoverage,
  formatFailure,
  formatReport,
  formatResultLine,
  toJsonReport,
  toJUnitXml,
} from './report-format.js';
export { RULES, type RuleName } from './rules.js';
export { type NotSeededRecord, TargetNotSeeded } from './seed-check.js';
export type { SeedInput } from './seed-source.js';
export type { ContractTarget, RequestHandler } from './target.js';
export type { AuthOptions, Grant } from './token-source.js';
