import helmet from 'helmet';

/**
 * The headers a scanner expects on every response of the reference server, set by `helmet`
 * (made once, at start): `X-Content-Type-Options: nosniff`, `Strict-Transport-Security`,
 * `Referrer-Policy: no-referrer`, `X-Frame-Options`, the `Cross-Origin-*` policies, and a
 * restrictive `Content-Security-Policy` under which `/docs` still works: its script, styles and
 * icon are files of this server (`'self'`), Swagger UI's icons are `data:` images, and its calls
 * (the spec, "Try it out", the login) go to this server. Nothing is inline and nothing comes from
 * elsewhere. `upgrade-insecure-requests` is left out: the server speaks plain HTTP (TLS ends at a
 * proxy in front of it, when there is one), and the page must load over it.
 *
 * A Connect-style middleware over Node's request and response, so Express uses it as it is and
 * Fastify from an `onRequest` hook.
 */
export const securityHeaders = helmet({
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
