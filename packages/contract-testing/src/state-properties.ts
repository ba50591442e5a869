// The properties over the model of the seed's state tables: `stateful` (fc.commands of calls in
// each restaurant's own context, every answer compared with the model), `isolation` (calls in one
// restaurant's context naming another's records in every way), and `auth` (bad tokens, missing
// scopes, tokens for other restaurants; each leaves the state unchanged).
import fc from 'fast-check';
import {
  type Call,
  type Engine,
  perform,
  probeUnchanged,
  ROLE_NAMES,
  type Role,
  recordNamed,
  toWire,
  type WorldRecord,
} from './contract-model.js';
import type { Exchange } from './http-client.js';
import {
  beginRun,
  type ContractProperty,
  type PropertyDefinition,
  recorded,
} from './property-runner.js';
import { check, checkDocumented, checkProblem, show } from './response-checks.js';
import { type AuthOptions, type BadTokenKind, badTokenKindsFor } from './token-source.js';

/** How a call names its target, before it is resolved against the world. */
interface Pick {
  readonly role: Role;
  readonly context: number;
  /** Own: a record of the context restaurant; foreign: of another restaurant. */
  readonly foreign: boolean;
  readonly record: number;
  readonly byExternalId: boolean;
  /** Letter case of GUIDs in the path and the context header (bit masks). */
  readonly pathCase: number;
  readonly contextCase: number;
  readonly includeArchived: 'true' | 'false' | undefined;
  readonly rawColon: boolean;
  /** Which token: for every restaurant, for the context only, or for it and another. */
  readonly grant: 'all' | 'context' | 'context-and-other';
}

const withCase = (text: string, mask: number) =>
  [...text].map((char, i) => ((mask >> (i % 31)) & 1 ? char.toUpperCase() : char)).join('');

const at = <T>(list: readonly T[], index: number): T | undefined =>
  list.length === 0 ? undefined : list[index % list.length];

/** The call a pick makes in this world. */
function callOf(engine: Engine, pick: Pick): Call {
  const { world } = engine;
  const context =
    at(world.restaurants, pick.context)?.guid ?? '00000000-0000-4000-8000-000000000000';
  const others = world.restaurants.filter((r) => r.guid !== context);
  const grantRestaurants =
    pick.grant === 'all'
      ? ('*' as const)
      : pick.grant === 'context'
        ? [withCase(context, pick.contextCase ^ pick.pathCase)]
        : [context, ...(others[0] === undefined ? [] : [others[0].guid])];
  const grant = { scopes: engine.spec.scopes, restaurants: grantRestaurants };
  let id: string;
  if (pick.role === 'getRestaurant') {
    const named = pick.foreign ? (at(others, pick.record)?.guid ?? context) : context;
    id = withCase(named, pick.pathCase);
  } else {
    const pool = pick.role === 'deleteShift' ? world.shifts : world.employees;
    const candidates = pool.filter((r) => (r.restaurant === context) !== pick.foreign);
    const record = at(candidates.length > 0 ? candidates : pool, pick.record);
    if (record === undefined) id = withCase('6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', pick.pathCase);
    else if (pick.byExternalId && record.externalId !== undefined) id = record.externalId;
    else id = withCase(record.guid, pick.pathCase);
  }
  return {
    role: pick.role,
    context: withCase(context, pick.contextCase),
    grant,
    id,
    ...(pick.includeArchived === undefined ? {} : { includeArchived: pick.includeArchived }),
    rawColon: pick.rawColon,
  };
}

const showPick = (engine: Engine, pick: Pick) => {
  const call = callOf(engine, pick);
  const query =
    call.includeArchived === undefined || call.role !== 'getRestaurant'
      ? ''
      : `?includeArchived=${call.includeArchived}`;
  const grant = call.grant.restaurants === '*' ? '*' : call.grant.restaurants.join(',');
  return `${call.role} ${call.id}${query} in ${call.context} (token for ${grant})`;
};

function pickArb(foreignWeight: number, grants: readonly Pick['grant'][]): fc.Arbitrary<Pick> {
  return fc.record({
    role: fc.constantFrom(...ROLE_NAMES),
    context: fc.nat({ max: 63 }),
    foreign:
      foreignWeight === 0
        ? fc.constant(false)
        : fc.oneof(
            { weight: 4 - foreignWeight, arbitrary: fc.constant(false) },
            { weight: foreignWeight, arbitrary: fc.constant(true) },
          ),
    record: fc.nat({ max: 63 }),
    byExternalId: fc.boolean(),
    pathCase: fc.oneof(fc.constant(0), fc.nat({ max: 0x7fffffff })),
    contextCase: fc.oneof(fc.constant(0), fc.nat({ max: 0x7fffffff })),
    includeArchived: fc.constantFrom('true' as const, 'false' as const, undefined),
    rawColon: fc.boolean(),
    grant: fc.constantFrom(...grants),
  });
}

class CallCommand implements fc.AsyncCommand<object, Engine> {
  constructor(
    private readonly engine: Engine,
    private readonly pick: Pick,
  ) {}
  check() {
    return true;
  }
  async run(_model: object, engine: Engine) {
    const call = callOf(engine, this.pick);
    await perform(engine, call);
  }
  toString() {
    return showPick(this.engine, this.pick);
  }
}

/** After a sequence: each foreign record a call named is read back and held to the model. */
async function probeNamedForeign(
  engine: Engine,
  calls: readonly Call[],
  transcript: readonly Exchange[],
) {
  const probed = new Set<string>();
  for (const call of calls) {
    if (call.role === 'getRestaurant') continue;
    const pool = call.role === 'deleteShift' ? engine.world.shifts : engine.world.employees;
    const context = call.context.toLowerCase();
    for (const record of pool) {
      const named =
        record.guid === call.id.toLowerCase() ||
        (record.externalId !== undefined && record.externalId === call.id);
      if (!named || record.restaurant === context || probed.has(record.guid)) continue;
      probed.add(record.guid);
      const last = transcript.at(-1);
      if (last !== undefined) await probeUnchanged(engine, record, last);
    }
  }
}

const restaurantsWithRecords = (engine: Engine) =>
  new Set([...engine.world.employees, ...engine.world.shifts].map((r) => r.restaurant)).size;

export function stateProperties(engine: Engine, auth: AuthOptions): PropertyDefinition[] {
  const twoRestaurants =
    engine.world.restaurants.length >= 2
      ? undefined
      : 'the seed has fewer than two restaurants: nothing to isolate';
  const commands = (foreignWeight: number, grants: readonly Pick['grant'][]) =>
    fc.commands(
      [
        pickArb(foreignWeight, grants).map(
          (pick) => new CallCommand(engine, pick) as fc.AsyncCommand<object, Engine>,
        ),
      ],
      { maxCommands: 12 },
    );

  const stateful: PropertyDefinition = {
    name: 'stateful.state-tables',
    group: 'stateful',
    summary:
      "sequences of unarchive, archive (GUID or external id), shift delete and restaurant reads in each restaurant's context answer as the seed's state tables say",
    ...(restaurantsWithRecords(engine) >= 1
      ? {}
      : { notApplicable: 'the seed has no employees or shifts' }),
    build: (e) =>
      fc.asyncProperty(
        commands(0, ['all', 'context']),
        recorded(e, async (cmds) => {
          await beginRun(e, { fresh: true });
          await fc.asyncModelRun(() => ({ model: {}, real: e }), cmds);
        }),
      ) as unknown as ContractProperty,
  };

  const isolation: PropertyDefinition = {
    name: 'isolation.other-restaurants',
    group: 'isolation',
    summary:
      "no call in one restaurant's context reads, changes or reveals another restaurant's records, whatever ids it tries (GUIDs in any case, external ids)",
    ...(twoRestaurants === undefined ? {} : { notApplicable: twoRestaurants }),
    build: (e) =>
      fc.asyncProperty(
        fc.array(pickArb(3, ['context', 'context-and-other', 'all']), {
          minLength: 1,
          maxLength: 8,
        }),
        recorded(e, async (picks) => {
          await beginRun(e, { fresh: true });
          const calls = picks.map((pick) => callOf(e, pick));
          for (const call of calls) await perform(e, call);
          await probeNamedForeign(e, calls, e.client.transcript);
        }),
      ) as unknown as ContractProperty,
  };

  const refused = (
    name: string,
    summary: string,
    variant: fc.Arbitrary<{
      readonly apply: (
        call: Call,
      ) => Promise<Call | { readonly authorization: string | undefined }>;
    }>,
    expect: (res: Exchange) => void,
  ): PropertyDefinition => ({
    name,
    group: 'auth',
    summary,
    build: (e) =>
      fc.asyncProperty(
        pickArb(0, ['all']),
        variant,
        recorded(e, async (pick, how) => {
          await beginRun(e, { fresh: true });
          const valid = callOf(e, pick);
          const changed = await how.apply(valid);
          let req = await toWire(e, 'role' in changed ? changed : valid);
          if (!('role' in changed)) {
            const { Authorization: _dropped, ...headers } = req.headers;
            req = {
              ...req,
              headers:
                changed.authorization === undefined
                  ? headers
                  : { ...headers, Authorization: changed.authorization },
            };
          }
          const res = await e.client.send(req);
          checkDocumented(e.spec, e.operations[valid.role], req, res);
          expect({ request: req, response: res });
          const record: WorldRecord | undefined = recordNamed(e, valid);
          if (record !== undefined)
            await probeUnchanged(e, record, { request: req, response: res });
        }),
      ) as unknown as ContractProperty,
  });

  const kinds = badTokenKindsFor(auth);
  const missingKinds = ['expired', 'not-yet-valid', 'wrong-issuer', 'wrong-audience'].filter(
    (kind) => !kinds.includes(kind as BadTokenKind),
  );
  const invalidToken = refused(
    'auth.invalid-token',
    `missing, malformed${kinds.includes('expired') ? ', expired, not-yet-valid' : ''}${kinds.includes('wrong-issuer') ? ', wrong-issuer' : ''}${kinds.includes('wrong-audience') ? ', wrong-audience' : ''}, wrong-key, alg none and tampered tokens are 401 with WWW-Authenticate error="invalid_token", and change nothing${missingKinds.length > 0 ? ` (not checked without the key or claims: ${missingKinds.join(', ')})` : ''}`,
    fc
      .tuple(fc.constantFrom(...kinds), fc.nat({ max: 1000 }))
      .map(([kind, n]) =>
        Object.assign(
          { apply: async () => ({ authorization: await engine.tokens.badAuthorization(kind, n) }) },
          { [fc.toStringMethod]: () => `a ${kind} token` },
        ),
      ),
    ({ request, response }) => {
      checkProblem('invalid-token', request, response, 401, 'INVALID_TOKEN');
      const challenge = response.headers['www-authenticate'];
      check(
        String(challenge).includes('error="invalid_token"'),
        'invalid-token',
        () => `WWW-Authenticate is ${String(challenge)}: ${show(request, response)}`,
      );
    },
  );
  const scopes = engine.spec.scopes;
  const insufficientScope = refused(
    'auth.insufficient-scope',
    'a valid token without the operation\'s scope is 403 INSUFFICIENT_SCOPE with error="insufficient_scope", and changes nothing',
    fc.subarray([...scopes]).map((granted) =>
      Object.assign(
        {
          apply: async (call: Call) => {
            const op = engine.operations[call.role];
            return {
              ...call,
              grant: { ...call.grant, scopes: granted.filter((s) => s !== op.scope) },
            };
          },
        },
        {
          [fc.toStringMethod]: () =>
            `a token with the scopes [${granted.join(' ')}] less the operation's`,
        },
      ),
    ),
    ({ request, response }) => {
      checkProblem('insufficient-scope', request, response, 403, 'INSUFFICIENT_SCOPE');
      const challenge = response.headers['www-authenticate'];
      check(
        String(challenge).includes('error="insufficient_scope"'),
        'insufficient-scope',
        () => `WWW-Authenticate is ${String(challenge)}: ${show(request, response)}`,
      );
    },
  );
  const notPermitted = refused(
    'auth.restaurant-not-permitted',
    'a valid token for other restaurants than the context is 403 RESTAURANT_NOT_PERMITTED, and changes nothing',
    fc.tuple(fc.nat({ max: 15 }), fc.uuid({ version: 4 })).map(([n, unknown]) =>
      Object.assign(
        {
          apply: async (call: Call) => {
            const others = engine.world.restaurants
              .map((r) => r.guid)
              .filter((guid) => guid !== call.context.toLowerCase());
            const restaurants = [...others.slice(0, n % (others.length + 1)), unknown];
            return { ...call, grant: { ...call.grant, restaurants } };
          },
        },
        { [fc.toStringMethod]: () => `a token for ${n} other restaurants and ${unknown}` },
      ),
    ),
    ({ request, response }) =>
      checkProblem('restaurant-not-permitted', request, response, 403, 'RESTAURANT_NOT_PERMITTED'),
  );
  return [stateful, invalidToken, insufficientScope, notPermitted, isolation];
}
