// The properties over the model of the seed's state tables: `stateful` (fc.commands of calls in
// each restaurant's own context, every answer compared with the model) and `isolation` (calls in
// one restaurant's context naming another's records in every way; each record named is read back
// afterwards, unchanged).
import fc from 'fast-check';
import { callOf, type Pick, pickArb, printedPickArb, showPick } from './call-arbitraries.js';
import type { Engine } from './engine.js';
import type { Exchange } from './http-client.js';
import { perform, probeUnchanged } from './model-calls.js';
import type { PropertyDefinition } from './property-runner.js';
import type { Call } from './requests.js';
import { foreignRecordsNamed } from './state-oracle.js';

class CallCommand implements fc.AsyncCommand<object, Engine> {
  constructor(
    private readonly engine: Engine,
    private readonly pick: Pick,
  ) {}
  check() {
    return true;
  }
  async run(_model: object, engine: Engine) {
    await perform(engine, callOf(engine, this.pick));
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
  const last = transcript.at(-1);
  if (last === undefined) return;
  for (const call of calls) {
    for (const record of foreignRecordsNamed(engine, call)) {
      if (probed.has(record.guid)) continue;
      probed.add(record.guid);
      await probeUnchanged(engine, record, last);
    }
  }
}

const restaurantsWithRecords = (engine: Engine) =>
  new Set([...engine.world.employees, ...engine.world.shifts].map((r) => r.restaurant)).size;

/** The stateful and isolation properties. */
export function stateProperties(engine: Engine): PropertyDefinition[] {
  const stateful: PropertyDefinition = {
    name: 'stateful.state-tables',
    group: 'stateful',
    summary:
      "sequences of unarchive, archive (GUID or external id), shift delete and restaurant reads in each restaurant's context answer as the seed's state tables say",
    ...(restaurantsWithRecords(engine) >= 1
      ? {}
      : { notApplicable: 'the seed has no employees or shifts' }),
    build: (trial) =>
      fc.asyncProperty(
        fc.commands(
          [
            pickArb(0, ['all', 'context']).map(
              (pick): fc.AsyncCommand<object, Engine> => new CallCommand(engine, pick),
            ),
          ],
          { maxCommands: 12 },
        ),
        trial.predicate({ fresh: true }, async (cmds) => {
          await fc.asyncModelRun(() => ({ model: {}, real: engine }), cmds);
        }),
      ),
  };

  const isolation: PropertyDefinition = {
    name: 'isolation.other-restaurants',
    group: 'isolation',
    summary:
      "no call in one restaurant's context reads, changes or reveals another restaurant's records, whatever ids it tries (GUIDs in any case, external ids)",
    ...(engine.world.restaurants.length >= 2
      ? {}
      : { notApplicable: 'the seed has fewer than two restaurants: nothing to isolate' }),
    build: (trial) =>
      fc.asyncProperty(
        fc.array(printedPickArb(engine, 3, ['context', 'context-and-other', 'all']), {
          minLength: 1,
          maxLength: 8,
        }),
        trial.predicate({ fresh: true }, async (picks) => {
          const calls = picks.map((pick) => callOf(engine, pick));
          for (const call of calls) await perform(engine, call);
          await probeNamedForeign(engine, calls, engine.client.transcript);
        }),
      ),
  };
  return [stateful, isolation];
}
