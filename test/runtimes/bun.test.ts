// The fetch adapter served by Bun.serve, over the memory store, through real HTTP (runtime-suite.ts):
// one Bun process for the file, its apps made in it at the tests' request (apps.ts).
import { describeRuntime } from './runtime-suite.js';

describeRuntime('bun');
