// Deliberately broken deployments: the real router over the memory store, each with one bug put
// in by a wrapper (around the store or the token verifier) or by middleware before the router
// (which rewrites the answer or the request). The mutation suite holds the kit to failing each.
// The last ones break the contract only when two changes of one record overlap (races): their
// stores answer later, as a database's do, so that requests sent at once are under way together.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import {
  type ConditionalWrite,
  type ConditionalWriter,
  type Guid,
  type IdentityChangeRefused,
  type MaybeAsync,
  parseGuid,
  parseRecordId,
  type RecordIdentifier,
  type StorageError,
  toResultAsync,
  type VersionConflict,
} from '@workforce-kit/core';
import type { ApiStore } from '@workforce-kit/express-adapter';
import type { Request, RequestHandler } from 'express';
import { ok, okAsync, type Result, ResultAsync } from 'neverthrow';
import type { BreakHooks } from './router-target.js';

/** What a request did, as the store wrappers see it. */
interface RequestScope {
  readonly method: string;
  readonly path: string;
  wrote: boolean;
  /** The employee an unarchive request is unarchiving, once its store read names it. */
  unarchiving?: Guid;
}
const scope = new AsyncLocalStorage<RequestScope>();

/** Middleware that opens the request's scope, for the store wrappers. */
const scoped: RequestHandler = (req, _res, next) => {
  scope.run({ method: req.method, path: req.path, wrote: false }, next);
};

/** A store that marks the request's scope when it writes. */
function markingWrites(store: ApiStore): ApiStore {
  return {
    ...store,
    employees: {
      find: (r, id) => store.employees.find(r, id),
      write: (change) => {
        const current = scope.getStore();
        if (current !== undefined) current.wrote = true;
        return store.employees.write(change);
      },
    },
    shifts: {
      find: (r, id) => store.shifts.find(r, id),
      write: (change) => {
        const current = scope.getStore();
        if (current !== undefined) current.wrote = true;
        return store.shifts.write(change);
      },
    },
  };
}

interface Answer {
  readonly req: Request;
  readonly res: ServerResponse;
  status: number;
  body: string;
}

/** Middleware that lets `edit` change each answer (status, headers, body) before it is sent. */
function rewriting(edit: (answer: Answer) => void): RequestHandler {
  return (req, res, next) => {
    const chunks: Buffer[] = [];
    const end = res.end.bind(res);
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      res.statusCode = status;
      for (const arg of rest) {
        // Node's writeHead takes headers as an object or as a flat [name, value, …] list.
        if (Array.isArray(arg)) {
          for (let i = 0; i + 1 < arg.length; i += 2) res.setHeader(String(arg[i]), arg[i + 1]);
        } else if (arg !== null && typeof arg === 'object') {
          for (const [name, value] of Object.entries(arg)) {
            if (value !== undefined) res.setHeader(name, value as string);
          }
        }
      }
      return res;
    }) as typeof res.writeHead;
    res.write = ((chunk: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
      const answer: Answer = {
        req,
        res,
        status: res.statusCode,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      edit(answer);
      res.statusCode = answer.status;
      if (res.getHeader('content-length') !== undefined) {
        res.setHeader('content-length', Buffer.byteLength(answer.body));
      }
      writeHead(answer.status);
      return end(answer.body);
    }) as typeof res.end;
    next();
  };
}

/** The answer's JSON body, changed by `change` (when it is a JSON object). */
function editJson(answer: Answer, change: (body: Record<string, unknown>) => void): void {
  try {
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    change(body);
    answer.body = JSON.stringify(body);
  } catch {
    // not JSON: left as is
  }
}

/**
 * `call`, made at once and answered once `wait` is over, as a database's answers come: a read
 * shows the record as it was when it was made, however long its answer takes.
 */
export function after<A extends unknown[], T, E>(
  wait: () => Promise<void>,
  call: (...args: A) => MaybeAsync<Result<T, E>>,
): (...args: A) => ResultAsync<T, E> {
  return (...args) => {
    const answer = toResultAsync(call(...args));
    return new ResultAsync(wait().then(() => answer));
  };
}

/** The next turn of the event loop: requests that arrived together all read before any writes. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A timer of `ms()` milliseconds. */
const millis = (ms: () => number) => () =>
  new Promise<void>((resolve) => setTimeout(resolve, ms()));

/**
 * The bug of a hand-written store: a write that skips the version check. It reads the record's
 * version, then writes over whatever is stored, so a change decided on a stale read wins.
 */
export function blindWrite<T extends { readonly guid: Guid; readonly restaurantGuid: Guid }>(
  repository: ConditionalWriter<T> & {
    find(restaurant: Guid, id: RecordIdentifier): MaybeAsync<Result<T | null, StorageError>>;
  },
  field: 'employeeId' | 'shiftId',
) {
  return (change: ConditionalWrite<T>) =>
    toResultAsync(
      repository.find(
        change.record.restaurantGuid,
        parseRecordId(change.record.guid, field)._unsafeUnwrap(),
      ),
    ).andThen((current) =>
      toResultAsync(
        repository.write({
          ...change,
          expectedVersion:
            (current as { version?: number } | null)?.version ?? change.expectedVersion,
        }),
      ),
    );
}

/** The employees being unarchived by requests under way, and how many each. */
function unarchivesUnderWay() {
  const underWay = new Map<Guid, number>();
  const tracking: RequestHandler = (req, res, next) => {
    const current: RequestScope = { method: req.method, path: req.path, wrote: false };
    res.once('close', () => {
      const guid = current.unarchiving;
      if (guid === undefined) return;
      const left = (underWay.get(guid) ?? 1) - 1;
      if (left === 0) underWay.delete(guid);
      else underWay.set(guid, left);
    });
    scope.run(current, next);
  };
  const noteRead = (id: RecordIdentifier) => {
    const current = scope.getStore();
    if (current === undefined || !current.path.endsWith('/unarchive') || id.kind !== 'guid') return;
    if (current.unarchiving !== undefined) return;
    current.unarchiving = id.guid;
    underWay.set(id.guid, (underWay.get(id.guid) ?? 0) + 1);
  };
  return { tracking, noteRead, underWay: (guid: Guid) => underWay.has(guid) };
}

const isEmployeePath = (path: string) => /^\/labor\/v1\/employees\/[^/]+(\/unarchive)?$/.test(path);
const isShiftPath = (path: string) => /^\/labor\/v1\/shifts\/[^/]+$/.test(path);

/**
 * Hooks that archive the employee a DELETE names in its context restaurant, before the router
 * checks anything: a refused request changes the record.
 */
function archivesBeforeAuth(): BreakHooks {
  let captured: ApiStore | undefined;
  const archiveFirst: RequestHandler = async (req, _res, next) => {
    const guid = /^\/labor\/v1\/employees\/([0-9a-f-]{36})$/i.exec(req.path)?.[1];
    const context = String(req.headers['platform-restaurant-external-id'] ?? '').trim();
    const store = captured;
    if (req.method === 'DELETE' && guid !== undefined && store !== undefined) {
      const restaurant = parseGuid(context, 'restaurant');
      const id = parseRecordId(guid, 'employeeId');
      if (restaurant.isOk() && id.isOk()) {
        const found = await toResultAsync(store.employees.find(restaurant.value, id.value));
        if (found.isOk() && found.value !== null && !found.value.deleted) {
          const now = new Date().toISOString();
          await toResultAsync(
            store.employees.write({
              record: { ...found.value, deleted: true, deletedDate: now, modifiedDate: now },
              expectedVersion: found.value.version,
              events: [],
            }),
          );
        }
      }
    }
    next();
  };
  return {
    before: [archiveFirst],
    store: (store) => {
      captured = store;
      return store;
    },
  };
}

/**
 * Hooks of a store whose employee writes leave `field` out of the records `when` picks (by their
 * `deleted`): a column the write forgets. Archived without a deletedDate is a record the core's
 * types refuse, which is the bug.
 */
function writesEmployeesWithout(
  field: 'deletedDate' | 'wageOverrides',
  when: (deleted: boolean) => boolean,
): BreakHooks {
  return {
    store: (store) => ({
      ...store,
      employees: {
        ...store.employees,
        write: (change) => {
          if (!when(change.record.deleted)) return store.employees.write(change);
          const { [field]: _dropped, ...record } = change.record;
          return store.employees.write({ ...change, record: record as typeof change.record });
        },
      },
    }),
  };
}

export interface Mutant {
  readonly name: string;
  /** The bug, as a user would report it. */
  readonly bug: string;
  readonly hooks: BreakHooks;
  /**
   * Its bug shows only when changes overlap in a way the event loop decides, so a run finds it
   * by chance (most do; now and then one does not).
   */
  readonly race?: true;
}

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'unarchive-twice-200',
    bug: 'a second unarchive answers 200 (the store reports every employee archived to unarchive)',
    hooks: {
      before: [scoped],
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          find: (restaurant, id) =>
            toResultAsync(store.employees.find(restaurant, id)).map((employee) =>
              employee !== null &&
              scope.getStore()?.path.endsWith('/unarchive') &&
              !employee.deleted
                ? { ...employee, deleted: true, deletedDate: employee.modifiedDate }
                : employee,
            ),
        },
      }),
    },
  },
  {
    name: 'archive-twice-400',
    bug: 'a second archive answers 400 EMPLOYEE_ALREADY_ARCHIVED (the contract before 1.1.0)',
    hooks: {
      before: [
        scoped,
        rewriting((answer) => {
          const { req } = answer;
          if (req.method !== 'DELETE' || !isEmployeePath(req.path) || answer.status !== 200) return;
          if (scope.getStore()?.wrote) return;
          answer.status = 400;
          editJson(answer, (body) => {
            const requestId = answer.res.getHeader('x-request-id');
            for (const key of Object.keys(body)) delete body[key];
            Object.assign(body, {
              type: 'https://workforce-kit.dev/problems/employee-already-archived',
              title: 'Employee is already archived',
              status: 400,
              code: 'EMPLOYEE_ALREADY_ARCHIVED',
              requestId,
            });
          });
          answer.res.setHeader('content-type', 'application/problem+json; charset=utf-8');
        }),
      ],
      store: (store) => markingWrites(store),
    },
  },
  {
    name: 'modified-date-on-repeated-delete',
    bug: 'a repeated shift delete answers with a new modifiedDate',
    hooks: {
      before: [
        scoped,
        rewriting((answer) => {
          const { req } = answer;
          if (req.method !== 'DELETE' || !isShiftPath(req.path) || answer.status !== 200) return;
          if (scope.getStore()?.wrote) return;
          editJson(answer, (body) => {
            body.modifiedDate = new Date(Date.now() + 1000).toISOString();
          });
        }),
      ],
      store: (store) => markingWrites(store),
    },
  },
  {
    name: 'external-id-across-restaurants',
    bug: "a store whose external-id lookup ignores the restaurant: another restaurant's record answers, labelled as the context's",
    hooks: {
      store: (store, seed) => {
        // The core refuses a record of another restaurant than the one asked for, so the store
        // labels what it finds with the restaurant it was asked for (its query ignores the
        // restaurant; its mapping fills it in from the request), and writes to the real owner.
        const owners = new Map<string, Guid>(
          [...seed.employees, ...seed.shifts].map((r) => [r.guid, r.restaurantGuid]),
        );
        const across = <T extends { readonly restaurantGuid: Guid }>(
          find: (restaurant: Guid, id: RecordIdentifier) => ResultAsync<T | null, StorageError>,
        ) => {
          return (restaurant: Guid, id: RecordIdentifier): ResultAsync<T | null, StorageError> =>
            find(restaurant, id).andThen((found) => {
              if (found !== null || id.kind !== 'externalId') return okAsync(found);
              return seed.restaurants
                .map((r) => r.guid)
                .reduce<ResultAsync<T | null, StorageError>>(
                  (acc, other) =>
                    acc.andThen((hit) => (hit !== null ? okAsync(hit) : find(other, id))),
                  okAsync(null),
                )
                .map((hit) => (hit === null ? null : { ...hit, restaurantGuid: restaurant }));
            });
        };
        const toOwner = <T extends { readonly guid: Guid; readonly restaurantGuid: Guid }>(
          write: (
            change: ConditionalWrite<T>,
          ) => ResultAsync<T, VersionConflict | IdentityChangeRefused | StorageError>,
        ) => {
          return (change: ConditionalWrite<T>) => {
            const owner = owners.get(change.record.guid) ?? change.record.restaurantGuid;
            return write({ ...change, record: { ...change.record, restaurantGuid: owner } }).map(
              (stored) => ({ ...stored, restaurantGuid: change.record.restaurantGuid }),
            );
          };
        };
        return {
          ...store,
          employees: {
            find: across((r, id) => toResultAsync(store.employees.find(r, id))),
            write: toOwner((change) => toResultAsync(store.employees.write(change))),
          },
          shifts: {
            find: across((r, id) => toResultAsync(store.shifts.find(r, id))),
            write: toOwner((change) => toResultAsync(store.shifts.write(change))),
          },
        };
      },
    },
  },
  {
    name: 'first-delete-answers-not-deleted',
    bug: "the first delete of each shift answers deleted: false, every later one is right: a fault that depends on the target's history (the target remembers the shifts across resets of its store)",
    hooks: {
      store: (store) => {
        const answered = new Set<string>();
        return {
          ...store,
          shifts: {
            ...store.shifts,
            write: (change) =>
              toResultAsync(store.shifts.write(change)).map((stored) => {
                if (!stored.deleted || answered.has(stored.guid)) return stored;
                answered.add(stored.guid);
                const { deletedDate: _dropped, ...rest } = stored;
                return { ...rest, deleted: false };
              }),
          },
        };
      },
    },
  },
  {
    name: 'ignores-include-archived',
    bug: 'includeArchived is ignored: an archived restaurant is never found',
    hooks: {
      before: [
        (req, _res, next) => {
          req.url = req.url.replace(/([?&])includeArchived=[^&]*&?/i, '$1').replace(/[?&]$/, '');
          next();
        },
      ],
    },
  },
  {
    name: 'accepts-token-without-scope',
    bug: "a token without the operation's scope is accepted",
    hooks: {
      auth: (verifier) => ({
        verify: (token) =>
          toResultAsync(verifier.verify(token)).map((principal) => ({
            ...principal,
            scopes: new Set(['labor.employees:write', 'labor.shifts:write', 'restaurants:read']),
          })),
      }),
    },
  },
  {
    name: 'drops-request-id-on-errors',
    bug: 'errors are answered without X-Request-Id',
    hooks: {
      before: [
        rewriting((answer) => {
          if (answer.status >= 400) answer.res.removeHeader('x-request-id');
        }),
      ],
    },
  },
  {
    name: 'server-error-on-odd-shift-id',
    bug: 'a shift external id with characters beyond ASCII makes the store throw: 500',
    hooks: {
      store: (store) => ({
        ...store,
        shifts: {
          ...store.shifts,
          find: (restaurant, id) => {
            if (id.kind === 'externalId' && /[\u0080-\u{10FFFF}]/u.test(id.externalId)) {
              throw new Error('the store cannot handle this identifier');
            }
            return store.shifts.find(restaurant, id);
          },
        },
      }),
    },
  },
  {
    name: 'keeps-deleted-date-after-unarchive',
    bug: 'unarchive keeps the deletedDate of the archive',
    hooks: {
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          find: (restaurant, id) => store.employees.find(restaurant, id),
          write: (change) =>
            toResultAsync(
              store.employees.find(
                change.record.restaurantGuid,
                parseRecordId(change.record.guid, 'employeeId')._unsafeUnwrap(),
              ),
            ).andThen((before) =>
              toResultAsync(
                store.employees.write(
                  !change.record.deleted && before?.deletedDate !== undefined
                    ? {
                        ...change,
                        // A record the core's types refuse (not deleted, with a deletedDate): the
                        // bug. Object.assign adds it where a literal would not compile.
                        record: Object.assign(
                          { ...change.record },
                          { deletedDate: before.deletedDate },
                        ),
                      }
                    : change,
                ),
              ),
            ),
        },
      }),
    },
  },
  {
    name: 'stale-modified-date-on-unarchive',
    bug: 'unarchive answers (and stores) a stale modifiedDate: the createdDate, months old',
    hooks: {
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          write: (change) =>
            store.employees.write(
              change.record.deleted
                ? change
                : {
                    ...change,
                    record: { ...change.record, modifiedDate: change.record.createdDate },
                  },
            ),
        },
      }),
    },
  },
  {
    name: 'stale-modified-date-on-delete',
    bug: 'deleting a shift answers (and stores) its createdDate as the modifiedDate',
    hooks: {
      store: (store) => ({
        ...store,
        shifts: {
          ...store.shifts,
          write: (change) =>
            store.shifts.write(
              change.record.deleted
                ? {
                    ...change,
                    record: { ...change.record, modifiedDate: change.record.createdDate },
                  }
                : change,
            ),
        },
      }),
    },
  },
  {
    name: 'stale-deleted-date-on-archive',
    bug: 'archive records the createdDate as the deletedDate',
    hooks: {
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          write: (change) =>
            store.employees.write(
              change.record.deleted
                ? {
                    ...change,
                    record: { ...change.record, deletedDate: change.record.createdDate },
                  }
                : change,
            ),
        },
      }),
    },
  },
  {
    name: 'archive-without-deleted-date',
    bug: 'the store keeps an archived employee without its deletedDate (its write leaves the column out)',
    hooks: writesEmployeesWithout('deletedDate', (deleted) => deleted),
  },
  {
    name: 'reads-archives-without-deleted-date',
    bug: "the store's lookup of an employee leaves out deletedDate (a SELECT that misses the column)",
    hooks: {
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          find: (restaurant, id) =>
            toResultAsync(store.employees.find(restaurant, id)).map((employee) => {
              if (employee === null || !employee.deleted) return employee;
              const { deletedDate: _dropped, ...rest } = employee;
              return rest as typeof employee;
            }),
        },
      }),
    },
  },
  {
    name: 'archives-before-the-token-is-checked',
    bug: 'an archive is stored before the token is checked: a refused DELETE (401, 403) still archives the employee',
    hooks: archivesBeforeAuth(),
  },
  {
    name: 'unarchive-drops-wage-overrides',
    bug: 'unarchive drops the wage overrides the employee had when archived',
    hooks: writesEmployeesWithout('wageOverrides', (deleted) => !deleted),
  },
  {
    name: 'omits-entity-type',
    bug: 'employee and shift answers lack entityType',
    hooks: {
      before: [
        rewriting((answer) => {
          const { req } = answer;
          if (answer.status === 200 && (isEmployeePath(req.path) || isShiftPath(req.path))) {
            editJson(answer, (body) => {
              delete body.entityType;
            });
          }
        }),
      ],
    },
  },
  {
    name: 'returns-passcode',
    bug: 'employee answers show the point-of-sale passcode',
    hooks: {
      before: [
        rewriting((answer) => {
          if (answer.status === 200 && isEmployeePath(answer.req.path)) {
            editJson(answer, (body) => {
              body.passcode = '4821';
            });
          }
        }),
      ],
    },
  },
  {
    name: 'method-not-allowed-without-allow',
    bug: 'a 405 lacks the Allow header',
    hooks: {
      before: [
        rewriting((answer) => {
          if (answer.status === 405) answer.res.removeHeader('allow');
        }),
      ],
    },
  },
  {
    name: 'hides-payload-too-large',
    bug: 'a body over the limit is answered 400 MALFORMED_JSON: the declared 413 is never seen',
    hooks: {
      before: [
        rewriting((answer) => {
          if (answer.status !== 413) return;
          answer.status = 400;
          editJson(answer, (body) => {
            body.status = 400;
            body.code = 'MALFORMED_JSON';
            body.title = 'Malformed JSON';
          });
        }),
      ],
    },
  },
  {
    name: 'overlapping-unarchives-both-200',
    race: true,
    bug: 'two overlapping unarchives of one employee both answer 200: an unarchive writes without the version check, and the store answers a turn of the event loop later',
    hooks: {
      store: (store) => ({
        ...store,
        employees: {
          find: after(nextTurn, (restaurant, id) => store.employees.find(restaurant, id)),
          write: (change) =>
            change.record.deleted
              ? store.employees.write(change)
              : blindWrite(store.employees, 'employeeId')(change),
        },
      }),
    },
  },
  {
    name: 'overlapping-deletes-differ',
    race: true,
    bug: 'two overlapping deletes of one shift both change it, answering different deletedDates: a delete writes without the version check, and the store answers 0 to 2 ms later',
    hooks: {
      store: (store) => {
        let reads = 0;
        return {
          ...store,
          shifts: {
            find: after(
              millis(() => reads++ % 3),
              (restaurant, id) => store.shifts.find(restaurant, id),
            ),
            write: blindWrite(store.shifts, 'shiftId'),
          },
        };
      },
    },
  },
  ((): Mutant => {
    const unarchives = unarchivesUnderWay();
    return {
      name: 'archive-lost-to-unarchive',
      race: true,
      bug: 'an archive that overlaps an unarchive of the same employee answers 200 and is lost: the store drops its write while the unarchive is under way',
      hooks: {
        before: [unarchives.tracking],
        store: (store) => ({
          ...store,
          employees: {
            find: after(nextTurn, (restaurant, id) => {
              unarchives.noteRead(id);
              return store.employees.find(restaurant, id);
            }),
            write: (change) =>
              change.record.deleted && unarchives.underWay(change.record.guid)
                ? ok({ ...change.record, version: change.expectedVersion + 1 })
                : store.employees.write(change),
          },
        }),
      },
    };
  })(),
  {
    name: 'lost-update-store',
    race: true,
    bug: "a store whose writes skip the version check (read, then write), each of its calls answering a millisecond later, as a networked database's do",
    hooks: {
      store: (store) => {
        const later = millis(() => 1);
        return {
          ...store,
          employees: {
            find: after(later, (restaurant, id) => store.employees.find(restaurant, id)),
            write: after(later, blindWrite(store.employees, 'employeeId')),
          },
          shifts: {
            find: after(later, (restaurant, id) => store.shifts.find(restaurant, id)),
            write: after(later, blindWrite(store.shifts, 'shiftId')),
          },
        };
      },
    },
  },
];
