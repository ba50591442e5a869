/**
 * Property-test a deployment of the workforce-kit API against its OpenAPI contract, over HTTP:
 * requests generated from the spec (valid and invalid), sequences over a model of the seed's
 * state tables, bad tokens and missing grants, isolation between restaurants, changes sent at
 * once, and, given the deployment's events (in process, or its webhooks), each change's event
 * held to the call that made it. Failures shrink
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
  type Availability,
  type ContractOptions,
  checkApiContract,
  type Report,
} from './check-api-contract.js';
export type { RacePhase, RaceRecord } from './concurrent-history.js';
export type { Coverage, UnseenStatus } from './coverage.js';
export type { EventsSummary } from './event-ledger.js';
export {
  createEventRecorder,
  type DomainEventInput,
  type EventRecorder,
  type EventSink,
  type EventSource,
  type EventType,
  type ObservedEvent,
  type RefusedDelivery,
} from './event-source.js';
export { toHtmlReport } from './html-report.js';
export { GROUPS, type PropertyGroup, type ResultGroup } from './property-groups.js';
export type { PropertyResult } from './property-runner.js';
export type { RaceCallReport, RaceEventReport, RaceReport } from './race-report.js';
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
export {
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './webhook-receiver.js';
