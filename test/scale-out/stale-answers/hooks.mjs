// Module hooks of the stale-answers test: every import of @workforce-kit/postgres gets the mutant,
// which re-exports the real package with its store wrapped.
const mutant = new URL('./mutant-postgres.ts', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@workforce-kit/postgres') return { url: mutant, shortCircuit: true };
  return nextResolve(specifier, context);
}
