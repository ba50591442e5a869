// The auth properties: bad tokens (401 invalid_token), tokens without the operation's scope (403
// insufficient_scope) and tokens for other restaurants (403 RESTAURANT_NOT_PERMITTED); each
// refused request leaves the record it named unchanged.
import fc from 'fast-check';
import type { Answer } from './answer-checks.js';
import { callOf, pickArb } from './call-arbitraries.js';
import { printable } from './draft-arbitraries.js';
import { type Engine, send } from './engine.js';
import { probeUnchanged } from './model-calls.js';
import type { PropertyDefinition } from './property-runner.js';
import { type Call, callToWire, showCall } from './requests.js';
import { recordNamed } from './state-oracle.js';
import { type AuthOptions, type BadTokenKind, badTokenKindsFor } from './token-source.js';

/** How a valid call is spoiled: another call (another grant), or another Authorization header. */
type Spoiled = Call | { readonly authorization: string | undefined };

interface Spoiler {
  readonly apply: (call: Call) => Promise<Spoiled>;
  /** The token it sends, described. */
  readonly text: string;
}

const spoiler = (apply: Spoiler['apply'], text: string): Spoiler => ({ apply, text });

/** A valid call, spoiled, and the refusal `expect` says it must get; the record named is unchanged. */
function refused(
  engine: Engine,
  name: string,
  summary: string,
  spoilers: fc.Arbitrary<Spoiler>,
  expect: (answer: Answer) => void,
): PropertyDefinition {
  return {
    name,
    group: 'auth',
    summary,
    build: (trial) =>
      fc.asyncProperty(
        // Printed in a counterexample as the HTTP call, with the spoiled token described.
        fc
          .tuple(pickArb(0, ['all']), spoilers)
          .map(([pick, how]) =>
            printable({ pick, how }, (c) =>
              showCall(engine, callOf(engine, c.pick), `(${c.how.text})`),
            ),
          ),
        trial.predicate({ fresh: true }, async ({ pick, how }) => {
          const valid = callOf(engine, pick);
          const spoiled = await how.apply(valid);
          let req = await callToWire(engine, 'role' in spoiled ? spoiled : valid);
          if (!('role' in spoiled)) {
            const { Authorization: _dropped, ...headers } = req.headers;
            req = {
              ...req,
              headers:
                spoiled.authorization === undefined
                  ? headers
                  : { ...headers, Authorization: spoiled.authorization },
            };
          }
          const op = engine.operations[valid.role];
          const answer = await send(engine, req, op);
          answer.documented(op);
          expect(answer);
          const record = recordNamed(engine, valid);
          if (record !== undefined) await probeUnchanged(engine, record, answer);
        }),
      ),
  };
}

/** A refused token: `status` with problem `code`, and a challenge naming `error` (RFC 6750). */
const tokenRefused =
  (rule: 'invalid-token' | 'insufficient-scope', status: number, code: string, error: string) =>
  (answer: Answer) => {
    answer.problem(rule, status, code);
    const challenge = answer.response.headers['www-authenticate'];
    answer.check(
      String(challenge).includes(`error="${error}"`),
      rule,
      () => `WWW-Authenticate is ${String(challenge)}: ${answer.show()}`,
    );
  };

/** The auth properties, with the bad tokens `auth` lets the kit make. */
export function authProperties(engine: Engine, auth: AuthOptions): PropertyDefinition[] {
  const kinds = badTokenKindsFor(auth);
  const missingKinds = ['expired', 'not-yet-valid', 'wrong-issuer', 'wrong-audience'].filter(
    (kind) => !kinds.includes(kind as BadTokenKind),
  );
  const invalidToken = refused(
    engine,
    'auth.invalid-token',
    `missing, malformed${kinds.includes('expired') ? ', expired, not-yet-valid' : ''}${kinds.includes('wrong-issuer') ? ', wrong-issuer' : ''}${kinds.includes('wrong-audience') ? ', wrong-audience' : ''}, wrong-key, alg none and tampered tokens are 401 with WWW-Authenticate error="invalid_token", and change nothing${missingKinds.length > 0 ? ` (not checked without the key or claims: ${missingKinds.join(', ')})` : ''}`,
    fc
      .tuple(fc.constantFrom(...kinds), fc.nat({ max: 1000 }))
      .map(([kind, n]) =>
        spoiler(
          async () => ({ authorization: await engine.tokens.badAuthorization(kind, n) }),
          `${kind} token`,
        ),
      ),
    tokenRefused('invalid-token', 401, 'INVALID_TOKEN', 'invalid_token'),
  );
  const insufficientScope = refused(
    engine,
    'auth.insufficient-scope',
    'a valid token without the operation\'s scope is 403 INSUFFICIENT_SCOPE with error="insufficient_scope", and changes nothing',
    fc.subarray([...engine.spec.scopes]).map((granted) =>
      spoiler(
        async (call) => {
          const op = engine.operations[call.role];
          return {
            ...call,
            grant: { ...call.grant, scopes: granted.filter((s) => s !== op.scope) },
          };
        },
        `a token with the scopes [${granted.join(' ')}] less the operation's`,
      ),
    ),
    tokenRefused('insufficient-scope', 403, 'INSUFFICIENT_SCOPE', 'insufficient_scope'),
  );
  const notPermitted = refused(
    engine,
    'auth.restaurant-not-permitted',
    'a valid token for other restaurants than the context is 403 RESTAURANT_NOT_PERMITTED, and changes nothing',
    fc.tuple(fc.nat({ max: 15 }), fc.uuid({ version: 4 })).map(([n, unknown]) =>
      spoiler(async (call) => {
        const others = engine.world.restaurants
          .map((r) => r.guid)
          .filter((guid) => guid !== call.context.toLowerCase());
        const restaurants = [...others.slice(0, n % (others.length + 1)), unknown];
        return { ...call, grant: { ...call.grant, restaurants } };
      }, `a token for ${n} other restaurants and ${unknown}`),
    ),
    (answer) => answer.problem('restaurant-not-permitted', 403, 'RESTAURANT_NOT_PERMITTED'),
  );
  return [invalidToken, insufficientScope, notPermitted];
}
