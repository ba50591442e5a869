// The groups of properties a run can be limited to (`--only`): a module of its own, so that the
// command checks its arguments before it loads the engine.

/** The four groups of properties (`--only`). */
export const GROUPS = ['stateless', 'stateful', 'auth', 'isolation'] as const;
/** One of the {@link GROUPS}. */
export type PropertyGroup = (typeof GROUPS)[number];
