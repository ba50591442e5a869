import type { IncomingHttpHeaders } from 'node:http';
import { Readable, type Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { MaybeAsync } from '@workforce-kit/core';
import { err, ok, type Result } from 'neverthrow';
import getRawBody from 'raw-body';
import type { ProblemOccurrence } from './problems.js';

/** A request body as read: its JSON value (`undefined` for an empty body), or the problem that refuses it. */
export type JsonBody = Result<unknown, ProblemOccurrence>;

const TOO_LARGE: JsonBody = err({
  code: 'PAYLOAD_TOO_LARGE',
  detail: 'The request body is too large.',
});
const UNSUPPORTED_ENCODING: JsonBody = err({
  code: 'UNSUPPORTED_MEDIA_TYPE',
  detail: 'The body encoding is not supported.',
});
const NOT_JSON: JsonBody = err({
  code: 'MALFORMED_JSON',
  detail: 'The request body is not valid JSON.',
});
const UNREADABLE: JsonBody = err({
  code: 'MALFORMED_JSON',
  detail: 'The request body cannot be read as JSON.',
});
const NONE: JsonBody = ok(undefined);

/**
 * A request body as the web's Fetch API gives it: a `Request` (or anything whose `body` is the
 * request's `ReadableStream`, `null` when it has none). Its `body` is only read for an operation
 * that takes one, once the request's head passed, as a Node stream's is.
 */
export interface WebBody {
  readonly body: ReadableStream<Uint8Array> | null;
  /** Whether the host read the body already: there is then none left to read (a 400). */
  readonly bodyUsed?: boolean;
}

/** A request body not yet read: Node's stream (`IncomingMessage`), or a web request's. */
export type UnreadBody = Readable | WebBody;

/** Whether a body is Node's stream (every Readable pipes) rather than a web request's. */
function isNodeStream(body: UnreadBody): body is Readable {
  return typeof (body as Readable).pipe === 'function';
}

/** The decoder of a `Content-Encoding`: none for identity, `undefined` for one not supported. */
function decoderOf(encoding: string): (() => Transform) | null | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
      return createGunzip;
    case 'deflate':
      return createInflate;
    case 'br':
      return createBrotliDecompress;
    default:
      return undefined;
  }
}

/**
 * Reads a request's JSON body (its media type already checked to be JSON in UTF-8), at once when
 * there is none to wait for (no `Content-Length` or 0, and no `Transfer-Encoding`): inflated as
 * it arrives when its `Content-Encoding` is gzip, deflate or br (another is 415), at most `limit`
 * bytes once inflated (413, before any is read when `Content-Length` says so), a leading byte
 * order mark ignored (RFC 8259 allows it), an empty body none, any JSON value. A body that does
 * not parse, inflate or arrive whole is 400 `MALFORMED_JSON`; nothing of it reaches a use case.
 *
 * A web request's body (a `Request`'s stream) goes through the same Node stream machinery
 * (`Readable.fromWeb`), so that its limit, decoding and refusals are these rules, not a copy of
 * them. A web request made in process may carry a body without a `Content-Length`: there, its
 * stream says whether it has one (none, or a `Content-Length` of 0, is no body), and the limit
 * holds as it arrives. A body the host already read is 400 `MALFORMED_JSON` (it cannot be read).
 *
 * @param stream - the request (Node's `IncomingMessage`, or a web `Request`), not yet read
 * @param headers - its headers
 * @param limit - the largest body, in bytes
 * @example
 * ```ts
 * const body = await readJsonBody(req, req.headers, 16 * 1024);
 * if (body.isErr()) return answer(body.error);
 * ```
 */
export function readJsonBody(
  stream: UnreadBody,
  headers: IncomingHttpHeaders,
  limit: number,
): MaybeAsync<JsonBody> {
  const encoding = headers['content-encoding'];
  const decoder = encoding === undefined ? null : decoderOf(encoding.trim().toLowerCase());
  if (decoder === undefined) return UNSUPPORTED_ENCODING;
  // No body at all (RFC 9112, 6.3: neither Transfer-Encoding nor a Content-Length, or a length
  // of 0): nothing to wait for, and the answer is at hand.
  const length = headers['content-length'];
  if (isNodeStream(stream)) {
    if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
      return NONE;
    }
    return readStream(stream, decoder, length, limit);
  }
  // A web request's stream is touched only when its length does not say there is no body (a
  // host may make it on first use, as @hono/node-server does).
  if (length === '0') return NONE;
  const { body } = stream;
  if (body === null) return NONE;
  // Read already by the host (or locked by a reader of its): nothing of it is left to read.
  if (stream.bodyUsed === true || body.locked) return UNREADABLE;
  const readable = Readable.fromWeb(body);
  return readStream(readable, decoder, length, limit);
}

/** Reads a body that is on its way: inflated, limited, parsed (see {@link readJsonBody}). */
async function readStream(
  stream: Readable,
  decoder: (() => Transform) | null,
  length: string | undefined,
  limit: number,
): Promise<JsonBody> {
  let text: string;
  const inflater = decoder?.();
  try {
    if (inflater === undefined) {
      text = await getRawBody(stream, {
        limit,
        encoding: 'utf8',
        ...(length === undefined ? {} : { length }),
      });
    } else {
      // A body that does not inflate fails the read (not the process).
      stream.on('error', (error) => inflater.destroy(error));
      text = await getRawBody(stream.pipe(inflater), { limit, encoding: 'utf8' });
    }
  } catch (error) {
    // The rest of the body is read off (and dropped) before the answer, as Express's body parser
    // does: a connection closed with a body unread would reset, and the client lose the answer.
    if (inflater !== undefined) {
      stream.unpipe(inflater);
      inflater.destroy();
    }
    stream.resume();
    await finished(stream).catch(() => undefined);
    return (error as { type?: string }).type === 'entity.too.large' ? TOO_LARGE : UNREADABLE;
  }
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (json === '') return NONE;
  try {
    return ok(JSON.parse(json));
  } catch {
    return NOT_JSON;
  }
}
