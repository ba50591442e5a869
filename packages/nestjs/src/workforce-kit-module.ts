import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  DynamicModule,
  InjectionToken,
  ModuleMetadata,
  OnApplicationShutdown,
  OnModuleInit,
  OptionalFactoryDependency,
} from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { ApiOptions } from '@workforce-kit/http';
import { basePathOf, createApi, underBasePath, writeAnswer } from '@workforce-kit/http/adapter';

/**
 * Options of {@link WorkforceKitModule}: those of every adapter (`ApiOptions`: the store, the
 * token verifier, the limits, `onEvent`, …), and where in the app the API is served.
 */
export interface WorkforceKitModuleOptions extends ApiOptions {
  /**
   * A path of the API's own, under the app's global prefix: `'workforce'` with
   * `app.setGlobalPrefix('api')` serves `/api/workforce/labor/v1/…`.
   * @default '' (the API's paths right under the global prefix)
   */
  readonly path?: string;
  /**
   * Whether the API is served under the app's global prefix (`app.setGlobalPrefix()`), as the
   * app's controllers are. `false` serves it from the root (or its `path`), as a controller the
   * prefix's `exclude` names.
   * @default true
   */
  readonly useGlobalPrefix?: boolean;
}

/** The options of {@link WorkforceKitModule.forRootAsync}: a factory of the app's own providers. */
export interface WorkforceKitModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** The providers `useFactory` is given, in order (they must be visible to the module: `imports`). */
  readonly inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** Makes the options from the providers of `inject`. */
  readonly useFactory: (
    // biome-ignore lint/suspicious/noExplicitAny: Nest's own factory providers take any arguments.
    ...args: any[]
  ) => WorkforceKitModuleOptions | Promise<WorkforceKitModuleOptions>;
}

/** What the module needs of Nest's HTTP adapter (`AbstractHttpAdapter`), whatever the platform. */
interface HttpAdapter {
  getType(): string;
  getInstance(): unknown;
  use(handler: (req: ExpressRequest, res: ServerResponse, next: () => void) => void): unknown;
}

/** Express's request: Node's, and the path as sent when an app mounted the Nest app. */
type ExpressRequest = IncomingMessage & { readonly originalUrl?: string };

/** What the module needs of a Fastify instance: `register` with a prefix. */
interface FastifyInstance {
  register(plugin: unknown, options: object): PromiseLike<unknown>;
}

const OPTIONS = Symbol('WorkforceKitModuleOptions');
/** The API served on the app's platform (its lifecycle hooks run with the app's). */
const SERVING = Symbol('WorkforceKitModule serving');

/** The path the API is served under: the global prefix (unless told not to), then its own. */
function mountOf(options: WorkforceKitModuleOptions, config: ApplicationConfig): string {
  const prefix = options.useGlobalPrefix === false ? '' : config.getGlobalPrefix();
  const parts = [prefix, options.path ?? ''].map((part) => part.replace(/^\/+|\/+$/g, ''));
  const joined = parts.filter((part) => part !== '').join('/');
  return basePathOf(joined === '' ? '' : `/${joined}`, 'WorkforceKitModule path');
}

/**
 * Serves the API on the app's platform. On Express, from a middleware the app takes first, as soon
 * as Nest has made its HTTP adapter: before Nest's body parsers (which would read an API request's
 * body before its token is checked, by other rules) and anything else of the app; its path is
 * known once the app initializes. On Fastify, through the Fastify adapter's plugin, registered as
 * the app initializes: its routes answer from their `onRequest` hook, before Fastify reads a body.
 */
function serve(
  options: WorkforceKitModuleOptions,
  host: HttpAdapterHost,
  config: ApplicationConfig,
): OnModuleInit & OnApplicationShutdown {
  const { path: _path, useGlobalPrefix: _useGlobalPrefix, ...apiOptions } = options;
  let mount: string | undefined;
  const subscription = host.init$.subscribe(() => {
    const adapter = host.httpAdapter as unknown as HttpAdapter | undefined;
    if (adapter?.getType() !== 'express') return;
    const api = createApi(apiOptions);
    adapter.use((req, res, next) => {
      const target = req.url ?? '/';
      const url = mount === undefined ? undefined : underBasePath(target, mount);
      const answering =
        url === undefined
          ? undefined
          : api.handle({
              method: req.method ?? 'GET',
              url,
              originalUrl: req.originalUrl ?? target,
              headers: req.headers,
              address: req.socket.remoteAddress,
              body: req,
            });
      if (answering === undefined) next();
      else writeAnswer(res, answering);
    });
  });
  return {
    async onModuleInit() {
      const adapter = host.httpAdapter as unknown as HttpAdapter | undefined;
      // An application context without HTTP (`NestFactory.createApplicationContext`).
      if (!adapter) return;
      const type = adapter.getType();
      if (type === 'express') {
        mount = mountOf(options, config);
      } else if (type === 'fastify') {
        const { workforceKit } = await import('@workforce-kit/fastify-adapter').catch(
          (error: unknown) => {
            throw new Error(
              'WorkforceKitModule serves on Nest’s Fastify platform through @workforce-kit/fastify-adapter: install it',
              { cause: error },
            );
          },
        );
        await (adapter.getInstance() as FastifyInstance).register(workforceKit, {
          ...apiOptions,
          prefix: mountOf(options, config),
        });
      } else {
        throw new Error(
          `WorkforceKitModule serves on @nestjs/platform-express or @nestjs/platform-fastify, not on ${type}`,
        );
      }
    },
    async onApplicationShutdown() {
      subscription.unsubscribe();
      const { store } = options;
      if ('close' in store && typeof store.close === 'function') await store.close();
    },
  };
}

/**
 * The workforce-kit API as a NestJS module: the operations of the OpenAPI contract over any store
 * that implements the core's ports, answered by the API's one request pipeline
 * (`@workforce-kit/http`), with the same options, problem details, headers and statuses as the
 * other adapters, on Nest's Express or Fastify platform, under the app's global prefix and a path
 * of its own. Nest's guards, interceptors, pipes and exception filters do not apply to the API's
 * paths: the API authenticates (its `auth`), validates and answers them itself. When the app
 * shuts down (`app.close()`, or a signal with `app.enableShutdownHooks()`), the module closes the
 * store (its `close()`, if it has one) once the HTTP server has stopped.
 *
 * On Fastify, install `@workforce-kit/fastify-adapter` beside it, and give the platform its
 * `frameworkErrors` (`new FastifyAdapter({ frameworkErrors: frameworkErrors() })`), so that a path
 * of the API that does not percent-decode is the API's 400, as on Express.
 *
 * @example
 * ```ts
 * \@Module({ imports: [WorkforceKitModule.forRoot({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) })] })
 * class AppModule {}
 *
 * const app = await NestFactory.create(AppModule);
 * app.setGlobalPrefix('api'); // the API at /api/labor/v1/…, /api/restaurants/v1/…
 * app.enableShutdownHooks();
 * await app.listen(8080);
 * ```
 */
// biome-ignore lint/complexity/noStaticOnlyClass: Nest names a module by its class, and makes it with forRoot and forRootAsync.
export class WorkforceKitModule {
  /**
   * The module with its options given.
   *
   * @param options - the store, the token verifier, the limits (see `ApiOptions`), and the path
   * @returns the dynamic module, for a module's `imports`
   */
  static forRoot(options: WorkforceKitModuleOptions): DynamicModule {
    return WorkforceKitModule.forRootAsync({ useFactory: () => options });
  }

  /**
   * The module with its options made from the app's own providers: the store from the app's
   * database connection, the verifier's settings from its configuration.
   *
   * @param options - the modules to import, the providers to inject and the factory
   * @returns the dynamic module, for a module's `imports`
   * @example
   * ```ts
   * WorkforceKitModule.forRootAsync({
   *   imports: [DatabaseModule, ConfigModule],
   *   inject: [STORE, ConfigService],
   *   useFactory: (store: WorkforceStore, config: ConfigService) => ({
   *     store,
   *     auth: createJwtVerifier({ jwksUrl: config.getOrThrow('JWKS_URL') }),
   *   }),
   * });
   * ```
   */
  static forRootAsync(options: WorkforceKitModuleAsyncOptions): DynamicModule {
    return {
      module: WorkforceKitModule,
      imports: options.imports ?? [],
      providers: [
        { provide: OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        {
          provide: SERVING,
          useFactory: serve,
          inject: [OPTIONS, HttpAdapterHost, ApplicationConfig],
        },
      ],
    };
  }
}
