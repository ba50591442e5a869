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
  isWebhookSecret,
  loadConfig,
  type ServerConfig,
  type StoreConfig,
  type TracingConfig,
  type WebhookConfig,
} from './config.js';
export { type CurlSessionLogin, curlSession } from './curl-session.js';
export {
  type DevLoginOptions,
  devLoginRoutes,
  LOGIN_BODY_LIMIT,
  LOGIN_PATH,
  TOKEN_LIFETIME_SECONDS,
  WRONG_LOGINS_PER_15_MINUTES,
} from './dev-login.js';
export { docsRoutes, servedDocument } from './docs.js';
export type { HostAnswer, HostRequest, HostRoute } from './host-routes.js';
export { SECURITY_HEADERS } from './security-headers.js';
export { describeStore, type RunningServer, StartupError, startServer } from './server.js';
export {
  createWebhookDeliverer,
  type SignedWebhook,
  signWebhook,
  type WebhookDelivererOptions,
} from './webhooks.js';
