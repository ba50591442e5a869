// Properties of the spec's paths rather than its operations: a path with a method it does not
// take is 405 with Allow, and a path under the API that names no operation is 404.
import fc from 'fast-check';
import { printable } from './draft-arbitraries.js';
import { type Engine, send } from './engine.js';
import { headerOf, type WireRequest } from './http-client.js';
import { fullGrant } from './model-calls.js';
import type { PropertyDefinition } from './property-runner.js';
import { isDotSegment, OPENAPI_METHODS, type SpecOperation } from './spec-reader.js';

/** The methods a path answers: its operations', and HEAD wherever GET is (RFC 9110). */
const allowedOn = (ops: readonly SpecOperation[]) => {
  const methods = ops.map((op) => op.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
};

/**
 * The methods these properties send: those a path item may hold, but OPTIONS. A deployment that
 * browsers call answers OPTIONS with its host's CORS, in front of the API and whatever the API's
 * methods (docs/embedding.md, "Called from a browser: CORS").
 */
const SENT_METHODS = OPENAPI_METHODS.filter((method) => method !== 'options').map((method) =>
  method.toUpperCase(),
);

/** A request with a full grant's token and nothing else. */
const bare = async (engine: Engine, method: string, path: string): Promise<WireRequest> => ({
  method,
  path,
  headers: { Authorization: `Bearer ${await engine.tokens.token(fullGrant(engine))}` },
});

function wrongMethod(engine: Engine): PropertyDefinition {
  const paths = [...engine.spec.paths.entries()];
  return {
    name: 'stateless.paths.method-not-allowed',
    group: 'stateless',
    summary:
      'a path of the spec with a method it does not support is 405 with Allow, and changes nothing',
    runs: (runs) => Math.ceil(runs / 2),
    build: (trial) =>
      fc.asyncProperty(
        fc
          .constantFrom(...paths)
          .chain(([template, ops]) =>
            fc.tuple(
              fc.constant(template),
              fc.constantFrom(...SENT_METHODS.filter((m) => !allowedOn(ops).includes(m))),
              fc
                .array(
                  fc.oneof(
                    fc.stringMatching(/^[A-Za-z0-9:_-]{1,40}$/),
                    fc
                      .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
                      .map(encodeURIComponent),
                  ),
                  { minLength: 4, maxLength: 4 },
                )
                .filter((segments) => !segments.some(isDotSegment)),
            ),
          )
          .map(([template, method, segments]) => {
            let i = 0;
            const path = template.replace(/\{[^}]+\}/g, () => segments[i++] ?? 'x');
            // Printed in a counterexample as the HTTP call.
            return printable({ template, method, path }, (c) => `${c.method} ${c.path}`);
          }),
        trial.predicate({ fresh: false }, async ({ template, method, path }) => {
          const ops = engine.spec.paths.get(template) ?? [];
          // The 405 is an answer of each operation of the path: each declares it.
          const answer = await send(engine, await bare(engine, method, path), ...ops);
          answer.check(answer.status === 405, 'method-not-allowed');
          const allow = (headerOf(answer.response, 'Allow') ?? '').split(',').map((m) => m.trim());
          const expected = new Set(allowedOn(ops));
          answer.check(
            allow.length === expected.size && allow.every((m) => expected.has(m)),
            'method-not-allowed',
            () =>
              `Allow: ${headerOf(answer.response, 'Allow')}, expected ${[...expected].join(', ')}`,
          );
          for (const op of ops) answer.documented(op);
          if (method !== 'HEAD') answer.problem('method-not-allowed', 405, 'METHOD_NOT_ALLOWED');
        }),
      ),
  };
}

function unknownPath(engine: Engine): PropertyDefinition {
  const { spec } = engine;
  const segment = fc.oneof(
    fc.constantFrom('', 'x', ...spec.literalSegments),
    fc.stringMatching(/^[A-Za-z0-9._~:-]{1,12}$/).filter((value) => !isDotSegment(value)),
  );
  const nearMiss = fc
    .tuple(fc.constantFrom(...spec.paths.keys()), fc.integer({ min: 0, max: 4 }), segment)
    .map(([template, edit, extra]) => {
      const concrete = template.replace(/\{[^}]+\}/g, 'a1b2');
      const parts = concrete.split('/');
      if (edit === 0) return `${concrete}/`;
      if (edit === 1) return `${concrete}/${extra}`;
      if (edit === 2) return parts.slice(0, -1).join('/');
      const at = 3 + (parts.length - 3 > 0 ? edit % (parts.length - 3) : 0);
      const literal = parts[at] ?? '';
      parts[at] = edit === 3 ? literal.toUpperCase() : `${literal}${extra}s`;
      return parts.join('/');
    });
  const anyUnder = fc
    .tuple(fc.constantFrom(...spec.prefixes), fc.array(segment, { maxLength: 4 }))
    .map(([prefix, rest]) => [prefix, ...rest].join('/'));
  return {
    name: 'stateless.paths.unknown',
    group: 'stateless',
    summary: 'a path under the API that names no operation is 404 NOT_FOUND, whatever the method',
    runs: (runs) => Math.ceil(runs / 2),
    build: (trial) =>
      fc.asyncProperty(
        fc
          .tuple(
            fc.oneof(nearMiss, anyUnder).filter((path) => !spec.matchesTemplate(path)),
            fc.constantFrom(...SENT_METHODS),
          )
          // Printed in a counterexample as the HTTP call.
          .map(([path, method]) => printable({ path, method }, (c) => `${c.method} ${c.path}`)),
        trial.predicate({ fresh: false }, async ({ path, method }) => {
          // No operation's answer: it counts for none.
          const answer = await send(engine, await bare(engine, method, path));
          answer.check(answer.status === 404, 'unknown-path');
          answer.matches(spec.notFound);
        }),
      ),
  };
}

/** The properties of the spec's paths. */
export const pathProperties = (engine: Engine): PropertyDefinition[] => [
  wrongMethod(engine),
  unknownPath(engine),
];
