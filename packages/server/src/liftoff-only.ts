// Imported first by the `workforce-kit` bin (cli.ts), before PGlite's WebAssembly is compiled:
// `node --liftoff-only` set from inside, so that V8 keeps PostgreSQL's code as Liftoff makes it,
// for less resident memory (docs/server.md says why and what it costs). The bin's alone: a
// library does not change V8's flags for a host's whole process.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--liftoff-only');
