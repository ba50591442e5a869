#!/usr/bin/env node
// The `workforce-kit-contract` command: the kit against any running server, and, with
// --webhooks-listen, its webhooks. Exit 0 when every property holds (and, with --min-coverage,
// the run covered the contract), 1 on any violation, on a coverage gap, or when the target cannot
// be tested; 2 on bad usage; 3 when the target's records are not as the seed says (not freshly
// seeded: the run stops, no property fails). The arguments are checked before the engine (the
// spec, its validators, fast-check) is loaded.
import { parseArgs } from 'node:util';
import type { Report } from './check-api-contract.js';
import { GROUPS, type PropertyGroup } from './property-groups.js';
import { REPORT_FILE } from './report-files.js';
import { formatReport, formatResultLine } from './report-format.js';
import type { AuthOptions } from './token-source.js';

const USAGE = `Usage: workforce-kit-contract --base-url URL --seed FILE (--hs256-secret SECRET [--issuer ISS] [--audience AUD] | --token-command CMD) [options]

Property-tests a running deployment of the workforce-kit API against its OpenAPI contract.
The target must be freshly loaded with the seed file: the kit changes its records.

  --base-url URL            the API's base URL (a path prefix is kept)
  --seed FILE               the seed file the target was loaded with
  --hs256-secret SECRET     mint HS256 tokens with the target's secret (at least 32 characters)
  --issuer ISS              the iss the target requires
  --audience AUD            the aud the target requires
  --scope-claim NAME        the claim with the scopes (default scope)
  --restaurants-claim NAME  the claim with the restaurants (default restaurants)
  --token-command CMD       a shell command printing a token for CONTRACT_SCOPES (space-separated)
                            and CONTRACT_RESTAURANTS (comma-separated GUIDs, or *) in its environment
  --runs N                  fast-check runs per property (default 100)
  --rng-seed N              the RNG seed: the same seed against a freshly seeded target replays the run
  --shrink-time-limit S     seconds a failing property may shrink; then the smallest failing case
                            found so far is reported (default 10; 0: the first failing case as found)
  --only GROUPS             comma-separated: ${GROUPS.join(',')} (default all)
  --rate N                  at most N requests per second (stay within the target's rate limits)
  --report FILE             also write the report: .html (a page to look at, each race's history
                            drawn as a timeline, its events on it), .json or .xml (JUnit); may be
                            repeated
  --webhooks-listen HOST:PORT
                            receive the target's webhooks there (any path: point its webhook URLs
                            at http://HOST:PORT/…) and hold each change's event to the call that
                            made it; without it, events are not checked
  --webhook-secret SECRET   the target's webhook secret (whsec_…): each delivery is verified, and
                            one that fails is a failure of rule webhook-signature, never an event
  --events-timeout S        seconds the end of the run waits for the events still due; it ends
                            as soon as all have come (default 10)
  --faults                  the target is being broken on purpose (processes killed, its database
                            cut off): a call that gets no answer (a dropped connection, a reset,
                            a timeout) is indeterminate and counted apart as availability; only
                            safety is judged. Without it, such a call fails the run
                            (target-available)
  --min-coverage            fail unless the run saw every declared status it can provoke, checked
                            every rule (groups left out by --only may leave rules unchecked), and
                            had no thin evidence: the stateful and concurrent groups each ran every
                            kind of change at least 5 times
  --help                    this text

Exit status: 0 every property held; 1 a property failed (a broken rule, the target unreachable or
rate-limited for too long) or, with --min-coverage, a coverage gap; 2 bad usage or an unreadable
seed; 3 the run stopped because a record of the target is not as the seed says (archived, deleted
or dated otherwise before the kit changed it): the target was not freshly seeded. Start it afresh
from the seed file, and run the kit once against it.
`;

function usage(message: string): never {
  process.stderr.write(`workforce-kit-contract: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const integer = (name: string, text: string | undefined, min: number): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text) || Number(text) < min)
    usage(`${name} must be a whole number of at least ${min}`);
  return Number(text);
};

let values: Record<string, string | boolean | string[] | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      seed: { type: 'string' },
      'hs256-secret': { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      'scope-claim': { type: 'string' },
      'restaurants-claim': { type: 'string' },
      'token-command': { type: 'string' },
      runs: { type: 'string' },
      'rng-seed': { type: 'string' },
      'shrink-time-limit': { type: 'string' },
      only: { type: 'string' },
      rate: { type: 'string' },
      report: { type: 'string', multiple: true },
      'min-coverage': { type: 'boolean' },
      faults: { type: 'boolean' },
      'webhooks-listen': { type: 'string' },
      'webhook-secret': { type: 'string' },
      'events-timeout': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  usage((error as Error).message);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const text = (name: string) => values[name] as string | undefined;
const baseUrl = text('base-url');
const seed = text('seed');
if (baseUrl === undefined) usage('--base-url is required');
if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
  usage('--base-url must be an http(s) URL');
}
if (seed === undefined) usage('--seed is required');
const secret = text('hs256-secret');
const command = text('token-command');
if ((secret === undefined) === (command === undefined)) {
  usage('give exactly one of --hs256-secret and --token-command');
}
if (secret !== undefined && secret.length < 32)
  usage('--hs256-secret must be at least 32 characters');
const auth: AuthOptions =
  secret !== undefined
    ? {
        hs256Secret: secret,
        ...(text('issuer') === undefined ? {} : { issuer: text('issuer') as string }),
        ...(text('audience') === undefined ? {} : { audience: text('audience') as string }),
        ...(text('scope-claim') === undefined ? {} : { scopeClaim: text('scope-claim') as string }),
        ...(text('restaurants-claim') === undefined
          ? {}
          : { restaurantsClaim: text('restaurants-claim') as string }),
      }
    : { tokenCommand: command as string };
const only = text('only')
  ?.split(',')
  .map((group) => group.trim())
  .filter(Boolean);
for (const group of only ?? []) {
  if (!(GROUPS as readonly string[]).includes(group)) usage(`--only: unknown group ${group}`);
}
const reportFiles = (values.report ?? []) as string[];
for (const file of reportFiles) {
  if (!REPORT_FILE.test(file)) usage('--report must name a .html, .json or .xml (JUnit) file');
}
const runs = integer('--runs', text('runs'), 1);
const rngSeed = integer('--rng-seed', text('rng-seed'), -(2 ** 31));
const rate = integer('--rate', text('rate'), 1);
const shrinkSeconds = integer('--shrink-time-limit', text('shrink-time-limit'), 0);
const eventsSeconds = integer('--events-timeout', text('events-timeout'), 0);
const listen = text('webhooks-listen');
const webhookSecret = text('webhook-secret');
const address = listen === undefined ? undefined : /^(.+):(\d+)$/.exec(listen);
if (listen !== undefined && (address == null || Number(address[2]) > 65535)) {
  usage('--webhooks-listen must be HOST:PORT, such as 127.0.0.1:4000');
}
if (listen === undefined && (webhookSecret !== undefined || eventsSeconds !== undefined)) {
  usage('--webhook-secret and --events-timeout go with --webhooks-listen');
}
if (webhookSecret !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(webhookSecret)) {
  usage('--webhook-secret must be a Standard Webhooks secret: whsec_ and the base64 of its key');
}

const { checkApiContract } = await import('./check-api-contract.js');
const { TargetNotSeeded } = await import('./seed-check.js');
const { startWebhookReceiver } = await import('./webhook-receiver.js');
let events: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
if (address != null) {
  try {
    events = await startWebhookReceiver({
      host: (address[1] as string).replace(/^\[(.*)\]$/, '$1'),
      port: Number(address[2]),
      ...(webhookSecret === undefined ? {} : { secret: webhookSecret }),
    });
  } catch (error) {
    usage(`--webhooks-listen ${listen}: ${(error as Error).message}`);
  }
}
let report: Report;
try {
  report = await checkApiContract({
    target: baseUrl,
    seed,
    auth,
    ...(runs === undefined ? {} : { runs }),
    ...(rngSeed === undefined ? {} : { rngSeed }),
    ...(rate === undefined ? {} : { rate }),
    ...(shrinkSeconds === undefined ? {} : { shrinkTimeLimitMs: shrinkSeconds * 1000 }),
    ...(only === undefined ? {} : { only: only as PropertyGroup[] }),
    minCoverage: values['min-coverage'] === true,
    faults: values.faults === true,
    ...(events === undefined ? {} : { events }),
    ...(eventsSeconds === undefined ? {} : { eventsTimeoutMs: eventsSeconds * 1000 }),
    report: reportFiles,
    onResult: (result) => process.stdout.write(`${formatResultLine(result)}\n`),
  });
} catch (error) {
  if (error instanceof TargetNotSeeded) {
    process.stderr.write(
      `workforce-kit-contract: stopped, no contract violation: ${error.message}\nThe kit follows the changes it makes from the seed's state: start the target afresh from ${seed}, and run the kit once against it.\n`,
    );
    process.exit(3);
  }
  // A seed that cannot be read or parsed: the command was given something unusable.
  process.stderr.write(`workforce-kit-contract: ${(error as Error).message}\n`);
  process.exit(2);
} finally {
  await events?.close();
}
process.stdout.write(`${formatReport(report, { lines: false })}\n`);
process.exit(report.ok ? 0 : 1);
