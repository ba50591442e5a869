// Imported first by the `workforce-kit` bin (cli.ts), before anything compiles PGlite's
// WebAssembly: V8 then keeps PostgreSQL's code as its baseline compiler (Liftoff) makes it and
// does not compile the hot functions a second time with TurboFan: less resident memory for
// slightly slower statements (docs/server.md has the figures); with STORE=memory or
// STORE=postgres (no WebAssembly) it changes nothing.
//
// The flag is the same as `node --liftoff-only`, set from inside the process so that users of
// the bin need not know it. It is read when a WebAssembly module is compiled, so setting it
// before PGlite loads is enough (the footprint bench measures the bin as users run it). A host
// that embeds PGlite in its own process decides for itself (`node --liftoff-only`): a library
// does not change V8's flags for the whole process.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--liftoff-only');
