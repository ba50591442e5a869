/**
 * The Node.js options the reference server runs with under `npm start` (and in the footprint
 * benchmark). A bin cannot set them for itself: to run the installed `workforce-kit` command the
 * same way, pass them to node, e.g.
 * `node --liftoff-only node_modules/@workforce-kit/server/dist/cli.js`.
 *
 * - `--liftoff-only`: V8 runs PGlite's PostgreSQL (WebAssembly) as its baseline compiler
 *   (Liftoff) makes it, and does not compile the hot functions a second time with TurboFan: the
 *   reference server on PGlite keeps about 50 MB less resident memory, idle and under load
 *   (175 MB against 222 MB idle, 212 MB against 268-300 MB after 10 s of GETs, measured with
 *   `pnpm --filter @workforce-kit/bench run footprint`), for PostgreSQL statements about 6%
 *   slower. It changes nothing with `STORE=memory` or `STORE=postgres` (no WebAssembly).
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--liftoff-only'];
