import type { Response } from 'express';

/**
 * Sends a JSON body (a 200's record, or a problem), written directly rather than through
 * `res.json`: Express's `send` would also hash the body for an `ETag` (and answer a matching
 * `If-None-Match` with a 304 the spec does not document) and re-check the content type, per
 * response. HEAD gets the headers only (Node drops the body of a HEAD response).
 */
export function sendJson(
  res: Response,
  body: object,
  status = 200,
  contentType = 'application/json; charset=utf-8',
): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
