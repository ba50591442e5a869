interface HttpError {
  readonly status?: number;
  readonly type?: string;
}

/** The problem of an error thrown by the body parser; `undefined` for the rest (500). */
export function problemOf(error: unknown) {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, type } = error as HttpError;
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
