// Deliberately broken deployments: the real router over the memory store, each with one bug put
// in by a wrapper (around the store or the token verifier) or by middleware before the router
// (which rewrites the answer or the request). The mutation suite holds the kit to failing each.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import {
  type ConditionalWrite,
  type Guid,
  type IdentityChangeRefused,
  parseRecordId,
  type RecordIdentifier,
  type StorageError,
  toResultAsync,
  type VersionConflict,
} from '@workforce-kit/core';
import type { ApiStore } from '@workforce-kit/express-adapter';
import type { Request, RequestHandler } from 'express';
import { okAsync, type ResultAsync } from 'neverthrow';
import type { BreakHooks } from './router-target.js';

/** What a request did, as the store wrappers see it. */
interface RequestScope {
  readonly method: string;
  readonly path: string;
  wrote: boolean;
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

const isEmployeePath = (path: string) => /^\/labor\/v1\/employees\/[^/]+(\/unarchive)?$/.test(path);
const isShiftPath = (path: string) => /^\/labor\/v1\/shifts\/[^/]+$/.test(path);

export interface Mutant {
  readonly name: string;
  /** The bug, as a user would report it. */
  readonly bug: string;
  readonly hooks: BreakHooks;
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
    name: 'unarchive-drops-wage-overrides',
    bug: 'unarchive drops the wage overrides the employee had when archived',
    hooks: {
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          write: (change) => {
            if (change.record.deleted) return store.employees.write(change);
            const { wageOverrides: _dropped, ...record } = change.record;
            return store.employees.write({ ...change, record });
          },
        },
      }),
    },
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
];
