import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';

/**
 * The headers a scanner expects on every response of the reference server, set by `helmet`:
 * `X-Content-Type-Options: nosniff`, `Strict-Transport-Security`, `Referrer-Policy: no-referrer`,
 * `X-Frame-Options`, the `Cross-Origin-*` policies, and a restrictive `Content-Security-Policy`
 * under which `/docs` still works: its script, styles and icon are files of this server
 * (`'self'`), Swagger UI's icons are `data:` images, and its calls (the spec, "Try it out", the
 * login) go to this server. Nothing is inline and nothing comes from elsewhere.
 * `upgrade-insecure-requests` is left out: the server speaks plain HTTP (TLS ends at a proxy in
 * front of it, when there is one), and the page must load over it.
 */
const helmetMiddleware = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'none'"],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'"],
    },
  },
  frameguard: { action: 'deny' },
});

/**
 * The security headers of every response of the reference server: helmet's, with the options
 * above. A host that embeds the API can give them to it as `responseHeaders` to answer alike.
 *
 * They are read once at start-up from a response helmet is given: with these options
 * (no nonce, nothing per request) it sets the same headers on every response, so the server
 * writes them as they are rather than running helmet for each request. The API's answers carry
 * them through `ApiOptions.responseHeaders`, in the answer's one write; the server's own routes
 * (health, metrics, docs, login) set them on their responses.
 *
 * @example
 * ```ts
 * import { createRouter } from '@workforce-kit/express-adapter';
 *
 * app.use(createRouter({ store, auth, responseHeaders: SECURITY_HEADERS }));
 * ```
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  const headers: Record<string, string> = {};
  const setHeader = res.setHeader.bind(res);
  // Recorded as helmet names them (getHeaders() would give them in lower case).
  res.setHeader = (name, value) => {
    headers[name] = String(value);
    return setHeader(name, value);
  };
  let done = false;
  helmetMiddleware(res.req, res, (error?: unknown) => {
    if (error !== undefined) throw error;
    done = true;
  });
  if (!done) throw new Error('helmet did not set its headers at once');
  return Object.freeze(headers);
})();

const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/** Sets {@link SECURITY_HEADERS} on a response of the host's own routes (health, docs, login). */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of SECURITY_HEADER_ENTRIES) res.setHeader(name, value);
}
