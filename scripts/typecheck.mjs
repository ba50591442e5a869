#!/usr/bin/env node
// `pnpm typecheck`: every TypeScript program of the workspace, then the TSDoc examples
// (scripts/check-tsdoc-examples.mjs), in one process rather than one tsc each. The workspace's
// program (tsconfig.workspace.json) checks every package's source; the programs of the examples
// and the Bun bench import that source too (the packages resolve to it), and report only their
// own files' problems: the workspace's program checks the rest, with the same strict settings.
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { checkTsdocExamples, formatFailure } from './check-tsdoc-examples.mjs';

/**
 * The programs, by tsconfig file: `own` when only the files under the config's folder report (the
 * rest is the workspace's source, which tsconfig.workspace.json checks).
 * @type {readonly { config: string, own?: true }[]}
 */
const PROGRAMS = [
  { config: 'tsconfig.json' },
  { config: 'tsconfig.workspace.json' },
  { config: 'packages/types/tsconfig.json' },
  { config: 'examples/tsconfig.json', own: true },
  { config: 'examples/bun/tsconfig.json', own: true },
  { config: 'examples/deno/tsconfig.json', own: true },
  { config: 'bench/bun/tsconfig.json', own: true },
];

/**
 * The problems of one program, as tsc reports them (all its files, or only its folder's).
 * @param {string} configFile - absolute
 * @param {boolean} own
 * @returns {readonly ts.Diagnostic[]}
 */
function diagnosticsOf(configFile, own) {
  /** @type {ts.Diagnostic[]} */
  const configProblems = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => configProblems.push(diagnostic),
  });
  if (parsed === undefined) return configProblems;
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    ...(parsed.projectReferences === undefined
      ? {}
      : { projectReferences: parsed.projectReferences }),
    configFileParsingDiagnostics: parsed.errors,
  });
  if (!own) return ts.getPreEmitDiagnostics(program);
  const folder = `${dirname(configFile)}${sep}`;
  const ownFiles = program
    .getSourceFiles()
    .filter(
      (file) =>
        resolve(file.fileName).startsWith(folder) && !file.fileName.includes('/node_modules/'),
    );
  return [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ownFiles.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** @type {ts.FormatDiagnosticsHost} */
const formatHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};
let problems = 0;
for (const { config, own } of PROGRAMS) {
  const started = performance.now();
  const diagnostics = diagnosticsOf(join(root, config), own === true);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  problems += diagnostics.length;
  if (diagnostics.length > 0) {
    console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
  }
  console.log(`${config}: ${diagnostics.length} problems (${seconds} s)`);
}

const started = performance.now();
const { checked, failures } = checkTsdocExamples(root);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
for (const failure of failures) console.error(formatFailure(failure));
console.log(`${checked} TSDoc examples: ${failures.length} problems (${seconds} s)`);
problems += failures.length;

if (problems > 0) {
  console.error(`\n${problems} type errors`);
  process.exit(1);
}
