/**
 * The reference workforce-kit service, for running as is (`workforce-kit`, `npm start`) or
 * starting from code: configuration from the environment, the server, the development login.
 *
 * @packageDocumentation
 */
export {
  type AuthConfig,
  type ConfigError,
  DEMO_SEED_FILE,
  loadConfig,
  type ServerConfig,
  type StoreConfig,
} from './config.js';
export { curlSession } from './curl-session.js';
export {
  createDevLogin,
  type DevLoginOptions,
  LOGIN_PATH,
  TOKEN_LIFETIME_SECONDS,
  WRONG_LOGINS_PER_15_MINUTES,
} from './dev-login.js';
export { createDocs, servedDocument } from './docs.js';
export { describeStore, type RunningServer, StartupError, startServer } from './server.js';
