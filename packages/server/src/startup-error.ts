/**
 * A start that cannot go on: a bad seed file, a key file that cannot be read, a port in use, a
 * PGlite directory in use by another process or that cannot be opened. Whatever the start had
 * opened is closed when this is thrown.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
