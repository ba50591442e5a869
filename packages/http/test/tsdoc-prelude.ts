// What the TSDoc examples of packages/http/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  Employee,
  RecordedEvent,
  RecordIdentifier,
  Restaurant,
  SeedRecords,
} from '@workforce-kit/core';
import type {
  AccessTokenVerifier,
  ApiOptions,
  ApiStore,
  Logger,
  TokenRejected,
  VerifierUnavailable,
} from '@workforce-kit/http';
import type { Api, ApiRequest } from '@workforce-kit/http/adapter';
import type { ResultAsync } from 'neverthrow';
import type { Counter } from 'prom-client';
import type { HttpMetrics } from '../src/http-metrics.js';
import type { ApiOperation } from '../src/operations.js';
import type { RequestTelemetry } from '../src/telemetry.js';

/** The API's options, and the parts they are made of. */
export declare const options: ApiOptions;
export declare const store: ApiStore;
export declare const auth: AccessTokenVerifier;
/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** The secret the host's access tokens are signed with. */
export declare const hs256Secret: string;
export declare const logger: Logger;

/** The API `createApi` made, and a request as an adapter hands it over. */
export declare const api: Api;
export declare const request: ApiRequest;
/** A request and its response on Node's HTTP server, and the host's next handler. */
export declare const req: IncomingMessage;
export declare const res: ServerResponse;
export declare const next: () => void;
/** What a request carries as the pipeline takes it. */
export declare const requestId: string;
export declare const address: string | undefined;
export declare const log: Logger;

/** The operations read from the spec, one of them, and the metrics and telemetry made for them. */
export declare const operations: readonly ApiOperation[];
export declare const operation: ApiOperation;
export declare const metrics: HttpMetrics | undefined;
export declare const telemetry: RequestTelemetry;

/** Records and events as the store holds them. */
export declare const restaurant: Restaurant;
export declare const employee: Employee;
export declare const event: RecordedEvent;

/** A prom-client counter of the host's. */
export declare const refusals: Counter;
/** An opaque-token introspection client of the host's. */
export declare const introspect: (
  token: string,
) => ResultAsync<{ readonly scopes: readonly string[] }, TokenRejected | VerifierUnavailable>;
/** When the request was taken (`performance.now()`), and an identifier in its path. */
export declare const started: number;
export declare const id: RecordIdentifier;
/** A Redis client of the host's (ioredis or node-redis: rate-limiter-flexible takes either). */
export declare const redis: unknown;
