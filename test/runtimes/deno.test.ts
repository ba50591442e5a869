// The fetch adapter served by Deno.serve, over the memory store, through real HTTP (runtime-suite.ts):
// one Deno process for the file, its apps made in it at the tests' request (apps.ts).
import { describeRuntime } from './runtime-suite.js';

describeRuntime('deno');
