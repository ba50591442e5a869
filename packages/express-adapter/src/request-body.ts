import contentType from 'content-type';
import express, { type RequestHandler } from 'express';
import type { OperationSpec } from './operations.js';
import { writeProblem } from './problem-details.js';
import { requestState } from './request-state.js';

function isJson(header: string | undefined): boolean {
  if (header === undefined) return false;
  try {
    const parsed = contentType.parse(header);
    const charset = parsed.parameters.charset?.toLowerCase();
    return parsed.type === 'application/json' && (charset === undefined || charset === 'utf-8');
  } catch {
    return false;
  }
}

/**
 * An operation with a body accepts `application/json` only (415 otherwise); the header is then
 * normalized, so the validator compiles one validator per operation, whatever clients send. An
 * operation without a body never reads one, and its Content-Type is ignored.
 */
export const mediaType =
  (operation: OperationSpec): RequestHandler =>
  (req, res, next) => {
    if (!operation.hasBody) {
      delete req.headers['content-type'];
      next();
      return;
    }
    if (!isJson(req.headers['content-type'])) {
      writeProblem(res, requestState(res).requestId, {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        detail: 'Content-Type must be application/json.',
      });
      return;
    }
    req.headers['content-type'] = 'application/json';
    next();
  };

/** The JSON body parser of operations with a body; an empty body (most unarchives) skips it. */
export function jsonBody(limitBytes: number): RequestHandler {
  const parseJson = express.json({ limit: limitBytes, strict: false });
  return (req, res, next) => {
    if (req.headers['content-length'] === '0') next();
    else parseJson(req, res, next);
  };
}
