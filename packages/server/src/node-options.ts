/**
 * The Node.js options the reference server runs with under `npm start` (and in the footprint
 * benchmark). A bin cannot set them for itself: to run the installed `workforce-kit` command the
 * same way, pass them to node, e.g.
 * `node --liftoff-only node_modules/@workforce-kit/server/dist/cli.js`.
 *
 * - `--liftoff-only`: V8 runs PGlite's PostgreSQL (WebAssembly) as its baseline compiler
 *   (Liftoff) makes it, and does not compile the hot functions a second time with TurboFan: the
 *   reference server on PGlite keeps about 50 MB less resident memory, idle and under load
 *   (measured on the server after 10 s of GETs from 50 connections: 175 against 222 MB idle,
 *   212-220 against 268-300 MB after the load), for PostgreSQL statements about 6% slower. It changes nothing with `STORE=memory` or `STORE=postgres` (no WebAssembly).
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--liftoff-only'];
