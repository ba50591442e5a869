/**
 * Types and a typed fetch SDK for the workforce-kit API, generated from `openapi/openapi.yaml`.
 *
 * - The contract as an object: `openapiDocument` (what the Express adapter validates against).
 * - Schema types from openapi-typescript: `paths`, `components`, `operations`.
 * - SDK functions from @hey-api/openapi-ts, one per operation (`unarchiveEmployee`,
 *   `archiveEmployee`, `deleteShift`, `getRestaurant`), their request and response types, the
 *   schema types by name (`Employee`, `Shift`, `RestaurantInfo`, `Problem`, …) and `createClient`.
 * - The webhooks the service sends (`webhooks`; the bodies `EmployeeArchivedWebhook`,
 *   `EmployeeUnarchivedWebhook`, `ShiftDeletedWebhook`, and their union `Webhooks`).
 *
 * @example
 * ```ts
 * import { createClient, deleteShift } from '@workforce-kit/types';
 *
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080', auth: () => accessToken });
 * const { data, error } = await deleteShift({
 *   client,
 *   path: { shiftId: 'SCHEDULER:shift-20260301-0042' },
 *   headers: { 'Platform-Restaurant-External-ID': restaurantGuid },
 * });
 * ```
 *
 * @packageDocumentation
 */
export { openapiDocument } from './gen/openapi.gen.js';
export * from './gen/sdk/index.js';
export type { OpenApiDocument } from './openapi-document.js';

// The generators write no comment on what follows: each is documented at its export, one export
// statement each (TypeDoc reads the comment of an export statement, not of a name in a list).

/** The spec's schemas by name (openapi-typescript): `components['schemas']['Employee']`, …. */
/** The spec's operations by operation id (openapi-typescript): parameters, request bodies, responses. */
/** The spec's paths (openapi-typescript): for each, its methods' operations. */
/** The webhooks the service sends, by event type (openapi-typescript): `webhooks['shift.deleted']`. */
export type { components, operations, paths, webhooks } from './gen/schema.gen.js';
/** How a client authenticates a request: the bearer token, or a function that returns it. */
/** A client of the SDK, made by `createClient`: its base URL, auth, fetch and interceptors. */
/** The options of `createClient` and `createConfig`. */
/** A client's configuration: `baseUrl`, `auth`, `fetch`, headers and the response style. */
/** What an SDK function resolves to: `{ data, error, request, response }`. */
export type {
  Auth,
  Client,
  ClientOptions as SdkClientOptions,
  Config,
  RequestResult,
} from './gen/sdk/client/index.js';
/**
 * Makes a client for the SDK's functions, to pass as their `client`.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080', auth: () => accessToken });
 * ```
 */
/** Makes a client's configuration, for `createClient` or a client's `setConfig`. */
export { createClient, createConfig } from './gen/sdk/client/index.js';
/** The options of an SDK function: the request's `path`, `query`, `headers`, `body`, and `client`. */
/** The base URL the spec names for the service (the SDK's default `baseUrl`). */
/** Any webhook request the service sends: its body and headers, one type per event. */
/** The request of `getRestaurant` (`GET /restaurants/v1/restaurants/{restaurantGUID}`): its path, query, headers and body. */
/** The answers of `getRestaurant` that are errors, by status: problem details. */
/** Any error answer of `getRestaurant`: a problem. */
/** The successful answers of `getRestaurant`, by status. */
/** The successful answer of `getRestaurant`. */
/** The request of `unarchiveEmployee` (`PUT /labor/v1/employees/{employeeId}/unarchive`): its path, query, headers and body. */
/** The answers of `unarchiveEmployee` that are errors, by status: problem details. */
/** Any error answer of `unarchiveEmployee`: a problem. */
/** The successful answers of `unarchiveEmployee`, by status. */
/** The successful answer of `unarchiveEmployee`. */
/** The request of `archiveEmployee` (`DELETE /labor/v1/employees/{employeeId}`): its path, query, headers and body. */
/** The answers of `archiveEmployee` that are errors, by status: problem details. */
/** Any error answer of `archiveEmployee`: a problem. */
/** The successful answers of `archiveEmployee`, by status. */
/** The successful answer of `archiveEmployee`. */
/** The request of `deleteShift` (`DELETE /labor/v1/shifts/{shiftId}`): its path, query, headers and body. */
/** The answers of `deleteShift` that are errors, by status: problem details. */
/** Any error answer of `deleteShift`: a problem. */
/** The successful answers of `deleteShift`, by status. */
/** The successful answer of `deleteShift`. */
/** The body of the `employee.archived` webhook. */
/** The `employee.archived` webhook request: its body and its Standard Webhooks headers. */
/** The body of the `employee.unarchived` webhook. */
/** The `employee.unarchived` webhook request: its body and its Standard Webhooks headers. */
/** The body of the `shift.deleted` webhook. */
/** The `shift.deleted` webhook request: its body and its Standard Webhooks headers. */
export type {
  ArchiveEmployeeData,
  ArchiveEmployeeError,
  ArchiveEmployeeErrors,
  ArchiveEmployeeResponse,
  ArchiveEmployeeResponses,
  ClientOptions,
  DeleteShiftData,
  DeleteShiftError,
  DeleteShiftErrors,
  DeleteShiftResponse,
  DeleteShiftResponses,
  EmployeeArchivedWebhookWebhookPayload,
  EmployeeArchivedWebhookWebhookRequest,
  EmployeeUnarchivedWebhookWebhookPayload,
  EmployeeUnarchivedWebhookWebhookRequest,
  GetRestaurantData,
  GetRestaurantError,
  GetRestaurantErrors,
  GetRestaurantResponse,
  GetRestaurantResponses,
  Options,
  ShiftDeletedWebhookWebhookPayload,
  ShiftDeletedWebhookWebhookRequest,
  UnarchiveEmployeeData,
  UnarchiveEmployeeError,
  UnarchiveEmployeeErrors,
  UnarchiveEmployeeResponse,
  UnarchiveEmployeeResponses,
  Webhooks,
} from './gen/sdk/index.js';
