/**
 * The path an API is served under, as an adapter whose host hands it requests with their full path
 * takes it (the fetch adapter's `basePath`, the NestJS module's global prefix and `path`): `''` for
 * the root, else `/…` with no trailing slash.
 *
 * @param basePath - `'/api'`, `'/api/'`, `''` or `'/'`
 * @param name - the setting's name, for the error
 * @returns the prefix to strip from a request's path
 * @throws TypeError for a path that does not start with `/`, or that holds a `?` or `#`
 * @example
 * ```ts
 * basePathOf('/api/'); // '/api'
 * ```
 */
export function basePathOf(basePath: string | undefined, name = 'basePath'): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  if (!basePath.startsWith('/') || /[?#]/.test(basePath)) {
    throw new TypeError(`${name} must be a path starting with '/', such as '/api': ${basePath}`);
  }
  return basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
}

/**
 * A request target (path and query, as sent) relative to a base path of {@link basePathOf}, or
 * `undefined` when it is not under it: `/api/labor/v1/…` under `/api` is `/labor/v1/…`; `/api` and
 * `/api?x` are `/` and `/?x`; `/apiary` is not under `/api`.
 *
 * @param target - the path and query as sent
 * @param basePath - from {@link basePathOf}
 * @returns the target relative to the base path, or `undefined`
 * @example
 * ```ts
 * underBasePath('/api/labor/v1/shifts/x', '/api'); // '/labor/v1/shifts/x'
 * ```
 */
export function underBasePath(target: string, basePath: string): string | undefined {
  if (basePath === '') return target;
  if (!target.startsWith(basePath)) return undefined;
  const rest = target.slice(basePath.length);
  if (rest === '' || rest[0] === '?') return `/${rest}`;
  return rest[0] === '/' ? rest : undefined;
}
