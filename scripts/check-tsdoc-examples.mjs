#!/usr/bin/env node
// `pnpm typecheck`'s last step: every ```ts block of a TSDoc `@example` in packages/*/src
// (generated files aside) type-checks, as examples/ does. Each block is a module of its own beside
// the file it documents, as Deno's `deno test --doc` makes them, checked under its package's
// compiler settings (its tsconfig.json: the workspace's strict ones). Without importing them, an
// example sees its package's public API, the exports of the file it documents (as in Deno), and its
// package's prelude, `test/tsdoc-prelude.ts`: the values examples take as given (`store`, `app`,
// `seed`), declared with their real types (as kysely's playground examples get their `db`). A name
// the example declares or imports itself comes first. The packages resolve to their source (the
// `@workforce-kit/source` condition, as in the rest of `pnpm typecheck`), so the check needs no
// build: it runs in `pnpm check`'s static lane while the packages build, and reads the code as it
// is in the tree, not as it was last built. docs/development.md says more.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * A ```ts block of an `@example`.
 * @typedef {object} Example
 * @property {string} file - the documented file (absolute)
 * @property {number} fenceLine - the line of its opening fence (0-based)
 * @property {number} firstLine - the line of its first line of code (0-based)
 * @property {number[]} margins - how many characters of each code line are the comment's margin
 * @property {string} code
 */

/**
 * Something wrong with an example: where it is in the source (1-based line and column) and what.
 * @typedef {object} Failure
 * @property {string} file - from the root
 * @property {number} line
 * @property {number} column
 * @property {string} message
 */

/** A fence that opens a block to check: TSDoc's and TypeDoc's names for TypeScript. */
const TS_FENCE = /^```(?:ts|typescript)\s*$/;
const ANY_FENCE = /^```/;
/** A comment line's margin: its indentation, the `*` and one space. */
const MARGIN = /^\s*\*(?: |(?=\s*$))?/;

/**
 * The `@example` blocks of a file's TSDoc comments (`/** … *\/`, found by the compiler, so that
 * no string or code is taken for one), and what is wrong with any that cannot be checked.
 * @param {ts.SourceFile} sourceFile
 * @returns {{ examples: Example[], problems: { line: number, message: string }[] }}
 */
export function examplesOf(sourceFile) {
  const { text } = sourceFile;
  /** @type {Map<number, ts.CommentRange>} */
  const comments = new Map();
  /** @param {ts.Node} node */
  const visit = (node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (text.startsWith('/**', range.pos)) comments.set(range.pos, range);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);

  /** @type {Example[]} */
  const examples = [];
  const problems = [];
  const lines = text.split('\n');
  for (const range of [...comments.values()].sort((a, b) => a.pos - b.pos)) {
    const from = sourceFile.getLineAndCharacterOfPosition(range.pos).line;
    const to = sourceFile.getLineAndCharacterOfPosition(range.end).line;
    let inBlock = false;
    for (let line = from; line <= to; line++) {
      const content = contentOf(lines[line] ?? '', line === from);
      if (ANY_FENCE.test(content)) inBlock = !inBlock;
      if (inBlock || !/^@example\b/.test(content)) continue;
      // TypeScript's own reading of tags would end one at a decorator in its code: the blocks
      // are read from the comment's lines.
      const found = blocksOf(lines, line, to);
      if (typeof found === 'string') problems.push({ line, message: found });
      else for (const block of found) examples.push({ file: sourceFile.fileName, ...block });
    }
  }
  return { examples, problems };
}

/**
 * A comment line without its margin (`/**` on the first line, else the indentation, the `*` and
 * one space).
 * @param {string} line
 * @param {boolean} first
 */
function contentOf(line, first) {
  return first ? line.replace(/^\s*\/\*\*\s?/, '') : line.replace(MARGIN, '');
}

/**
 * The ```ts blocks of the `@example` on line `tagLine`, up to the next tag (a line that starts
 * with `@` outside a block) or the comment's last line; or why there is none.
 * @param {string[]} lines - the file's lines
 * @param {number} tagLine
 * @param {number} lastLine - the comment's last line
 * @returns {Omit<Example, 'file'>[] | string}
 */
function blocksOf(lines, tagLine, lastLine) {
  const blocks = [];
  for (let index = tagLine + 1; index <= lastLine; index++) {
    const content = contentOf(lines[index] ?? '', false);
    if (content.startsWith('@')) break;
    if (!ANY_FENCE.test(content)) continue;
    const fenceLine = index;
    const code = [];
    const margins = [];
    for (index++; index <= lastLine; index++) {
      const line = lines[index] ?? '';
      const content = contentOf(line, false);
      if (ANY_FENCE.test(content)) break;
      // TSDoc's escape: `\@` keeps a decorator from starting a tag.
      code.push(content.replaceAll('\\@', '@'));
      margins.push(line.length - content.length);
    }
    if (index > lastLine) return 'this @example has a code block that is not closed';
    if (TS_FENCE.test(contentOf(lines[fenceLine] ?? '', false))) {
      blocks.push({ fenceLine, firstLine: fenceLine + 1, margins, code: code.join('\n') });
    }
  }
  return blocks.length > 0 ? blocks : 'this @example has no ```ts block to check';
}

/**
 * The names an example declares or imports at its top level, which it is not given.
 * @param {string} code
 * @returns {Set<string>}
 */
function declaredNames(code) {
  const names = new Set();
  const file = ts.createSourceFile('example.ts', code, ts.ScriptTarget.Latest);
  /** @param {ts.BindingName} name */
  const bind = (name) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else
      for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause !== undefined) {
      const { name, namedBindings } = statement.importClause;
      if (name !== undefined) names.add(name.text);
      if (namedBindings !== undefined && ts.isNamespaceImport(namedBindings)) {
        names.add(namedBindings.name.text);
      } else if (namedBindings !== undefined) {
        for (const element of namedBindings.elements) names.add(element.name.text);
      }
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isImportEqualsDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/**
 * A package of the workspace: its folder, its entry points' source files (by import specifier),
 * its tsconfig.json's settings and its prelude, if it has one.
 * @typedef {object} Package
 * @property {string} folder
 * @property {Map<string, string>} entries
 * @property {ts.CompilerOptions} options
 * @property {string | undefined} prelude
 */

/**
 * @param {string} folder
 * @returns {Package}
 */
function readPackage(folder) {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const entries = new Map();
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const source = typeof target === 'object' && target?.['@workforce-kit/source'];
    if (typeof source === 'string' && source.endsWith('.ts')) {
      entries.set(`${manifest.name}${subpath.slice(1)}`, join(folder, source));
    }
  }
  const config = ts.getParsedCommandLineOfConfigFile(join(folder, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (config === undefined) throw new Error(`${folder}/tsconfig.json could not be read`);
  // The settings that say how to check; where to put output is not one.
  const { configFilePath, rootDir, outDir, tsBuildInfoFile, ...options } = config.options;
  const prelude = join(folder, 'test', 'tsdoc-prelude.ts');
  return {
    folder,
    entries,
    options: { ...options, noEmit: true },
    prelude: existsSync(prelude) ? prelude : undefined,
  };
}

/**
 * The files of a folder, recursively, whose path ends with `.ts` (generated ones aside).
 * @param {string} folder
 * @returns {string[]}
 */
function sourcesIn(folder) {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.gen.ts'))
    .map((name) => join(folder, name))
    .sort();
}

/** A path as TypeScript writes it: absolute, with `/`. */
const tsPath = (/** @type {string} */ path) => path.split(sep).join('/');

/**
 * Type-checks every TSDoc example of the packages under `root` (`packages/<name>/src/**`).
 * @param {string} root - the workspace's folder
 * @returns {{ checked: number, failures: Failure[] }}
 */
export function checkTsdocExamples(root) {
  const packagesFolder = join(root, 'packages');
  const packages = readdirSync(packagesFolder)
    .sort()
    .map((name) => join(packagesFolder, name))
    .filter((folder) => existsSync(join(folder, 'package.json')))
    .map(readPackage);
  /** @type {Failure[]} */
  const failures = [];
  const where = (/** @type {string} */ file) => tsPath(relative(root, file));
  let checked = 0;
  // One program per set of compiler settings (most packages share the workspace's).
  /** @type {Map<string, Package[]>} */
  const groups = new Map();
  for (const pkg of packages) {
    const key = JSON.stringify(pkg.options);
    groups.set(key, [...(groups.get(key) ?? []), pkg]);
  }
  for (const group of groups.values()) {
    const run = checkGroup(root, group, group[0]?.options ?? {});
    checked += run.checked;
    failures.push(...run.failures.map((failure) => ({ ...failure, file: where(failure.file) })));
  }
  return { checked, failures };
}

/**
 * Checks the examples of packages that share compiler settings, in one program: a first one over
 * their sources says what each entry point, documented file and prelude exports; a second adds
 * the examples, each importing those names.
 * @param {string} root
 * @param {Package[]} packages
 * @param {ts.CompilerOptions} options
 * @returns {{ checked: number, failures: Failure[] }}
 */
function checkGroup(root, packages, options) {
  /** @type {Failure[]} */
  const failures = [];
  /** @type {Map<string, Example[]>} */
  const examplesByPackage = new Map();
  for (const pkg of packages) {
    const examples = [];
    for (const file of sourcesIn(join(pkg.folder, 'src'))) {
      const sourceFile = ts.createSourceFile(
        tsPath(file),
        readFileSync(file, 'utf8'),
        ts.ScriptTarget.Latest,
        true,
      );
      const found = examplesOf(sourceFile);
      examples.push(...found.examples);
      for (const { line, message } of found.problems) {
        failures.push({ file, line: line + 1, column: 1, message });
      }
    }
    examplesByPackage.set(pkg.folder, examples);
  }

  /** @type {Map<string, string>} the examples' modules, which exist only in memory */
  const virtual = new Map();
  const host = cachingHost(options, virtual, join(root, 'test'));
  const documented = [...examplesByPackage.values()].flat().map(({ file }) => file);
  const firstRoots = [
    ...new Set([
      ...packages.flatMap((pkg) => [...pkg.entries.values()].map(tsPath)),
      ...packages.flatMap((pkg) => (pkg.prelude === undefined ? [] : [tsPath(pkg.prelude)])),
      ...documented,
    ]),
  ];
  const first = ts.createProgram({ rootNames: firstRoots, options, host });
  const exportsOf = exportLister(first);

  /** @type {Map<string, { example: Example, headerLength: number }>} */
  const modules = new Map();
  for (const pkg of packages) {
    for (const example of examplesByPackage.get(pkg.folder) ?? []) {
      const fileName = `${example.file}$${example.firstLine + 1}-${example.firstLine + example.margins.length}.ts`;
      const header = givenNames(pkg, example, exportsOf);
      virtual.set(fileName, `${header}\n${example.code}\n`);
      modules.set(fileName, { example, headerLength: header.length });
    }
  }
  const program = ts.createProgram({
    rootNames: [...firstRoots, ...modules.keys()],
    options,
    host,
    oldProgram: first,
  });
  for (const diagnostic of [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ]) {
    failures.push({ file: root, line: 0, column: 0, message: messageOf(diagnostic) });
  }
  for (const pkg of packages) {
    if (pkg.prelude === undefined) continue;
    const prelude = program.getSourceFile(tsPath(pkg.prelude));
    if (prelude === undefined) continue;
    for (const diagnostic of program.getSemanticDiagnostics(prelude)) {
      const { line, character } = prelude.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      failures.push({
        file: pkg.prelude,
        line: line + 1,
        column: character + 1,
        message: messageOf(diagnostic),
      });
    }
  }
  for (const [fileName, { example }] of modules) {
    const sourceFile = program.getSourceFile(fileName);
    if (sourceFile === undefined) throw new Error(`${fileName} is not in the program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ];
    for (const diagnostic of diagnostics) {
      const at = sourceFile.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      // Line 0 is the header of given names; the example's code starts on line 1.
      const codeLine = at.line - 1;
      failures.push(
        codeLine < 0
          ? {
              file: example.file,
              line: example.fenceLine + 1,
              column: 1,
              message: `in the names the example is given: ${messageOf(diagnostic)}`,
            }
          : {
              file: example.file,
              line: example.firstLine + codeLine + 1,
              column: at.character + (example.margins[codeLine] ?? 0) + 1,
              message: messageOf(diagnostic),
            },
      );
    }
  }
  return { checked: modules.size, failures };
}

/**
 * A compiler host that parses each file once for both programs, serves the examples' modules from
 * memory, and resolves a package an example imports but its package does not depend on (a
 * framework a guide's example mounts the API on) as the workspace's tests do, from `test/`.
 * @param {ts.CompilerOptions} options
 * @param {Map<string, string>} virtual
 * @param {string} fallbackFolder
 * @returns {ts.CompilerHost}
 */
function cachingHost(options, virtual, fallbackFolder) {
  const host = ts.createCompilerHost(options, true);
  /** @type {Map<string, ts.SourceFile | undefined>} */
  const parsed = new Map();
  const { getSourceFile, fileExists, readFile } = host;
  const fallbackImporter = tsPath(join(fallbackFolder, 'index.ts'));
  const cache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (name) => name, options);
  return Object.assign(host, {
    /** @type {ts.CompilerHost['getSourceFile']} */
    getSourceFile(fileName, languageVersion, onError, shouldCreate) {
      const text = virtual.get(fileName);
      if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
      const format = typeof languageVersion === 'object' ? languageVersion.impliedNodeFormat : '';
      const key = `${fileName}\0${format}`;
      if (!parsed.has(key)) {
        parsed.set(key, getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate));
      }
      return parsed.get(key);
    },
    fileExists: (/** @type {string} */ fileName) => virtual.has(fileName) || fileExists(fileName),
    readFile: (/** @type {string} */ fileName) => virtual.get(fileName) ?? readFile(fileName),
    /** @type {ts.CompilerHost['resolveModuleNameLiterals']} */
    resolveModuleNameLiterals(literals, containingFile, redirected, compilerOptions, importer) {
      return literals.map((literal) => {
        const mode = ts.getModeForUsageLocation(importer, literal, compilerOptions);
        const resolve = (/** @type {string} */ from) =>
          ts.resolveModuleName(literal.text, from, compilerOptions, host, cache, redirected, mode);
        const resolved = resolve(containingFile);
        if (resolved.resolvedModule !== undefined || !virtual.has(containingFile)) return resolved;
        if (literal.text.startsWith('.')) return resolved;
        return resolve(fallbackImporter);
      });
    },
  });
}

/**
 * The names a module exports, each with whether it may be imported as a value.
 * @param {ts.Program} program
 * @returns {(file: string) => Map<string, boolean>}
 */
function exportLister(program) {
  const checker = program.getTypeChecker();
  /** @type {Map<string, Map<string, boolean>>} */
  const listed = new Map();
  /** @param {ts.Symbol} symbol */
  const isValue = (symbol) => {
    let current = symbol;
    while (current.flags & ts.SymbolFlags.Alias) {
      if ((current.declarations ?? []).some(isTypeOnly)) return false;
      current = checker.getImmediateAliasedSymbol(current) ?? current;
      if (!(current.flags & ts.SymbolFlags.Alias)) break;
    }
    return (current.flags & ts.SymbolFlags.Value) !== 0;
  };
  return (file) => {
    const known = listed.get(file);
    if (known !== undefined) return known;
    const names = new Map();
    const sourceFile = program.getSourceFile(tsPath(file));
    const module = sourceFile && checker.getSymbolAtLocation(sourceFile);
    for (const symbol of module === undefined ? [] : checker.getExportsOfModule(module)) {
      if (symbol.name !== 'default') names.set(symbol.name, isValue(symbol));
    }
    listed.set(file, names);
    return names;
  };
}

/**
 * Whether a declaration on an alias's way makes it a type only (`export type { X }`).
 * @param {ts.Declaration} declaration
 */
function isTypeOnly(declaration) {
  if (ts.isExportSpecifier(declaration) || ts.isImportSpecifier(declaration)) {
    return declaration.isTypeOnly || declaration.parent.parent.isTypeOnly;
  }
  if (ts.isImportClause(declaration)) return declaration.isTypeOnly;
  if (ts.isNamespaceImport(declaration)) return declaration.parent.isTypeOnly;
  return false;
}

/**
 * An example's header, on one line: the imports of what it is given and does not declare itself
 * (its package's public API, then its file's exports, then its package's prelude).
 * @param {Package} pkg
 * @param {Example} example
 * @param {(file: string) => Map<string, boolean>} exportsOf
 */
function givenNames(pkg, example, exportsOf) {
  const taken = declaredNames(example.code);
  const folder = dirname(example.file);
  const sources = [
    ...[...pkg.entries].map(([specifier, file]) => ({ specifier, file })),
    { specifier: relativeModule(folder, example.file), file: example.file },
    ...(pkg.prelude === undefined
      ? []
      : [{ specifier: relativeModule(folder, pkg.prelude), file: pkg.prelude }]),
  ];
  const imports = [];
  for (const { specifier, file } of sources) {
    const names = [];
    for (const [name, value] of exportsOf(file)) {
      if (taken.has(name)) continue;
      taken.add(name);
      names.push(value ? name : `type ${name}`);
    }
    if (names.length > 0) imports.push(`import { ${names.join(', ')} } from '${specifier}';`);
  }
  return [...imports, 'export {};'].join(' ');
}

/**
 * How a module in `folder` imports `file` (a `.ts` source, imported as `.js`).
 * @param {string} folder
 * @param {string} file
 */
function relativeModule(folder, file) {
  const path = tsPath(relative(folder, file)).replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}

/** @param {ts.Diagnostic} diagnostic */
function messageOf(diagnostic) {
  return `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
}

/**
 * A failure as a compiler prints it, so that an editor's terminal links it.
 * @param {Failure} failure
 */
export function formatFailure({ file, line, column, message }) {
  return `${file}:${line}:${column} - ${message}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  // The workspace's folder: this script's parent, unless one is given (a fixture's, in its test).
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const { checked, failures } = checkTsdocExamples(root);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  for (const failure of failures) console.error(formatFailure(failure));
  if (failures.length > 0) {
    console.error(
      `\n${failures.length} problems in the TSDoc examples (${checked} checked, ${seconds} s)`,
    );
    process.exit(1);
  }
  console.log(`${checked} TSDoc examples type-check (${seconds} s)`);
}
