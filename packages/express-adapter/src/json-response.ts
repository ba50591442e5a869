import type { Response } from 'express';

/**
 * Sends a 200 with a JSON body, written directly rather than through `res.json`: Express's `send`
 * would also hash the body for an `ETag` (and answer a matching `If-None-Match` with a 304 the spec
 * does not document) and re-check the content type, per response. HEAD gets the headers only
 * (Node drops the body of a HEAD response).
 */
export function sendJson(res: Response, body: object): void {
  const text = JSON.stringify(body);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
