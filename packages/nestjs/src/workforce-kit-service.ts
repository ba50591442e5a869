import {
  type FactoryProvider,
  Injectable,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { type AbstractHttpAdapter, ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { ApiOptions } from '@workforce-kit/http';
import { basePathOf } from '@workforce-kit/http/adapter';
import type { Subscription } from 'rxjs';
import {
  CLOSE_STORE_BY_DEFAULT,
  MODULE_OPTIONS_TOKEN,
  type WorkforceKitModuleOptions,
} from './module-definition.js';
import { serveOnExpress, serveOnFastify } from './platforms.js';

/**
 * The API of the module's options, served on the app's platform with the app's lifecycle: on
 * Express as the app initializes, on Fastify as the module does, and the store closed (unless
 * told not to) once the app's HTTP server has stopped. Inject it to reach the module's options.
 */
@Injectable()
export class WorkforceKitService implements OnModuleInit, OnApplicationShutdown {
  readonly #options: WorkforceKitModuleOptions;
  readonly #api: ApiOptions;
  readonly #closeStore: boolean;
  readonly #host: HttpAdapterHost;
  readonly #config: ApplicationConfig;
  readonly #adapterSet: Subscription;

  constructor(
    options: WorkforceKitModuleOptions,
    closeStoreByDefault: boolean,
    host: HttpAdapterHost,
    config: ApplicationConfig,
  ) {
    const { path: _path, useGlobalPrefix: _useGlobalPrefix, closeStore, ...api } = options;
    this.#options = options;
    this.#api = api;
    this.#closeStore = closeStore ?? closeStoreByDefault;
    this.#host = host;
    this.#config = config;
    // The adapter is set before this provider is made (NestFactory), or after (a testing module).
    this.#adapterSet = host.init$.subscribe(() => {
      const adapter = host.httpAdapter;
      if (adapter?.getType() === 'express') this.#serveAsExpressInitializes(adapter);
    });
  }

  /**
   * Nest calls its adapter's `init()` as the app initializes, after the app's own middleware and
   * `enableCors()` and before its body parsers, which would read an API request's body before its
   * token is checked: the router is mounted there.
   */
  #serveAsExpressInitializes(adapter: AbstractHttpAdapter): void {
    const { init } = adapter;
    adapter.init = async () => {
      adapter.init = init;
      await init.call(adapter);
      await serveOnExpress(adapter, this.#mount(), this.#api);
    };
  }

  /** Serves the API on Fastify, or refuses a platform it does not serve on. */
  async onModuleInit(): Promise<void> {
    const adapter: AbstractHttpAdapter | undefined = this.#host.httpAdapter;
    // An application context without HTTP (`NestFactory.createApplicationContext`).
    if (!adapter) return;
    const type = adapter.getType();
    if (type === 'fastify') await serveOnFastify(adapter, this.#mount(), this.#api);
    else if (type !== 'express') {
      throw new Error(
        `WorkforceKitModule serves on @nestjs/platform-express or @nestjs/platform-fastify, not on ${type}`,
      );
    }
  }

  /** Closes the store, if the module is to, once the app's HTTP server has stopped. */
  async onApplicationShutdown(): Promise<void> {
    this.#adapterSet.unsubscribe();
    const { store } = this.#api;
    if (this.#closeStore && 'close' in store && typeof store.close === 'function') {
      await store.close();
    }
  }

  /** The path the API is served under: the global prefix (unless told not to), then its own. */
  #mount(): string {
    const prefix = this.#options.useGlobalPrefix === false ? '' : this.#config.getGlobalPrefix();
    const parts = [prefix, this.#options.path ?? ''].map((part) => part.replace(/^\/+|\/+$/g, ''));
    const joined = parts.filter((part) => part !== '').join('/');
    return basePathOf(joined === '' ? '' : `/${joined}`, 'WorkforceKitModule path');
  }
}

/**
 * The service's provider: its constructor's tokens are named here rather than by parameter
 * decorators, which need TypeScript's `experimentalDecorators` wherever the source is run (tsx,
 * vitest), not only where it is built (a class decorator works in either mode).
 */
export const workforceKitService = {
  provide: WorkforceKitService,
  inject: [MODULE_OPTIONS_TOKEN, CLOSE_STORE_BY_DEFAULT, HttpAdapterHost, ApplicationConfig],
  useFactory: (
    options: WorkforceKitModuleOptions,
    closeStoreByDefault: boolean,
    host: HttpAdapterHost,
    config: ApplicationConfig,
  ) => new WorkforceKitService(options, closeStoreByDefault, host, config),
} satisfies FactoryProvider<WorkforceKitService>;
