// The groups of properties a run can be limited to (`--only`): a module of its own, so that the
// command checks its arguments before it loads the engine.

/** The groups of properties (`--only`), in the order a run takes them. */
export const GROUPS = ['stateless', 'stateful', 'auth', 'isolation', 'concurrent'] as const;
/** One of the {@link GROUPS}. */
export type PropertyGroup = (typeof GROUPS)[number];

/**
 * The group of a result: a group of properties, or `events`, the end of a run's check of the
 * events the deployment emitted (not a group `--only` picks: it follows the groups that ran).
 */
export type ResultGroup = PropertyGroup | 'events';
