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
export type { components, operations, paths, webhooks } from './gen/schema.gen.js';
export type {
  Auth,
  Client,
  ClientOptions as SdkClientOptions,
  Config,
  RequestResult,
} from './gen/sdk/client/index.js';
export { createClient, createConfig } from './gen/sdk/client/index.js';
export * from './gen/sdk/index.js';
export type { OpenApiDocument } from './openapi-document.js';
