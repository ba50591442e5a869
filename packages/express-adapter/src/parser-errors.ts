interface HttpError {
  readonly status?: number;
  /** body-parser's kind of refusal (`entity.parse.failed`, …). */
  readonly type?: string;
  /** A decoder's error code (zlib's `Z_DATA_ERROR`, brotli's), for a body it could not inflate. */
  readonly code?: string;
}

/**
 * The problem of an error thrown by the body parser (each has a `type`), or by Express's router
 * for a path parameter that does not percent-decode; `undefined` for the rest (a 500).
 */
export function problemOf(error: unknown) {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, type, code } = error as HttpError;
  if (error instanceof URIError && status === 400) {
    return {
      code: 'VALIDATION_FAILED' as const,
      detail: 'The request has 1 invalid input.',
      errors: [{ path: '/path', message: 'is not valid percent-encoding' }],
    };
  }
  switch (type) {
    case 'entity.parse.failed':
      return { code: 'MALFORMED_JSON' as const, detail: 'The request body is not valid JSON.' };
    case 'entity.too.large':
      return { code: 'PAYLOAD_TOO_LARGE' as const, detail: 'The request body is too large.' };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return {
        code: 'UNSUPPORTED_MEDIA_TYPE' as const,
        detail: 'The body encoding is not supported.',
      };
    default:
      break;
  }
  // Past here, only refusals of a body parser: its own (with a type) or its decoder's (a code).
  if (typeof type !== 'string' && typeof code !== 'string') return undefined;
  if (status === 415) {
    return {
      code: 'UNSUPPORTED_MEDIA_TYPE' as const,
      detail: 'Content-Type must be application/json.',
    };
  }
  if (status === 400) {
    // The body parser's other refusals (a body that its Content-Encoding does not decode, a
    // stream cut short): the body cannot be read as JSON.
    return { code: 'MALFORMED_JSON' as const, detail: 'The request body cannot be read as JSON.' };
  }
  return undefined;
}
