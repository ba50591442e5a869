import { err, ok, type Result } from 'neverthrow';
import { type MalformedIdentifier, malformedIdentifier } from './errors.js';

declare const guidBrand: unique symbol;
declare const externalIdBrand: unique symbol;

/** A platform GUID in its canonical lower-case 8-4-4-4-12 form. Made only by {@link parseGuid}. */
export type Guid = string & { readonly [guidBrand]: true };

/**
 * An external identifier `{namingAuthority}:{value}`, exactly as given (it is case-sensitive).
 * Made only by {@link parseExternalId}.
 */
export type ExternalId = string & { readonly [externalIdBrand]: true };

/**
 * How a record (a shift, or an employee to archive) is named: by its platform GUID or by its
 * external identifier.
 */
export type RecordIdentifier =
  | { readonly kind: 'guid'; readonly guid: Guid }
  | { readonly kind: 'externalId'; readonly externalId: ExternalId };

/** The same patterns as `GuidInput` and `ExternalId` in openapi/openapi.yaml (a test holds them equal). */
const GUID_PATTERN =
  /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the value excludes
const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9_-]{1,16}:[^\s\x00-\x1F\x7F-\x9F\uD800-\uDFFF]{1,256}$/u;

/** The pattern sources, for checks that the spec and the core agree. */
export const IDENTIFIER_PATTERNS = {
  guid: GUID_PATTERN.source,
  externalId: EXTERNAL_ID_PATTERN.source,
} as const;

/**
 * Parses a platform GUID, any letter case in, lower case out. The use cases take what it makes.
 *
 * @param value - the raw input
 * @param field - the input it came from, named in the error
 * @returns the canonical {@link Guid}, or a {@link MalformedIdentifier}
 * @example
 * ```ts
 * parseGuid('6A2B9C4D-1E3F-4A5B-8C7D-9E0F1A2B3C4D', 'employeeId');
 * // ok('6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d')
 * ```
 */
export function parseGuid(value: string, field: string): Result<Guid, MalformedIdentifier> {
  return GUID_PATTERN.test(value)
    ? ok(value.toLowerCase() as Guid)
    : err(malformedIdentifier(field, value, 'guid'));
}

/** Whether `value` is a platform GUID in any letter case. */
export function isGuid(value: string): boolean {
  return GUID_PATTERN.test(value);
}

/**
 * Parses an external identifier `{namingAuthority}:{value}`: the authority 1 to 16 letters,
 * digits, `-` or `_`; the value 1 to 256 code points with no whitespace, no control characters
 * and no unpaired surrogates.
 *
 * @returns the {@link ExternalId} unchanged, or `undefined` when malformed
 */
export function parseExternalId(value: string): ExternalId | undefined {
  return EXTERNAL_ID_PATTERN.test(value) ? (value as ExternalId) : undefined;
}

/**
 * Parses a record identifier (`shiftId`, or the `employeeId` of archive): a GUID when it parses as
 * one, otherwise an external identifier.
 *
 * @param value - the raw, already percent-decoded input
 * @param field - the input it came from, named in the error
 * @returns the {@link RecordIdentifier}, or a {@link MalformedIdentifier}
 * @example
 * ```ts
 * parseRecordId('SCHEDULER:shift-42', 'shiftId'); // ok({ kind: 'externalId', externalId: 'SCHEDULER:shift-42' })
 * parseRecordId('shift-42', 'shiftId');           // err({ type: 'MalformedIdentifier', field: 'shiftId', … })
 * ```
 */
export function parseRecordId(
  value: string,
  field: string,
): Result<RecordIdentifier, MalformedIdentifier> {
  if (GUID_PATTERN.test(value)) return ok({ kind: 'guid', guid: value.toLowerCase() as Guid });
  const externalId = parseExternalId(value);
  return externalId === undefined
    ? err(malformedIdentifier(field, value, 'guid-or-external-id'))
    : ok({ kind: 'externalId', externalId });
}

/** The identifier as a client would write it. */
export function formatRecordId(id: RecordIdentifier): string {
  return id.kind === 'guid' ? id.guid : id.externalId;
}
