import { type ConfigurableModuleAsyncOptions, ConfigurableModuleBuilder } from '@nestjs/common';
import type { ApiOptions } from '@workforce-kit/http';

/** Options of {@link WorkforceKitModule}: those of every adapter (`ApiOptions`), and the module's. */
export interface WorkforceKitModuleOptions extends ApiOptions {
  /**
   * A path of the API's own, under the app's global prefix: `'workforce'` with
   * `app.setGlobalPrefix('api')` serves `/api/workforce/labor/v1/…`.
   * @default '' (the API's paths right under the global prefix)
   */
  readonly path?: string;
  /**
   * Whether the API is served under the app's global prefix, as the app's controllers are.
   * `false` serves it from the root (or its `path`), as a controller the prefix's `exclude` names.
   * @default true
   */
  readonly useGlobalPrefix?: boolean;
  /**
   * Whether the module closes the store (its `close()`) once the app's HTTP server has stopped. A
   * store `forRootAsync` was given may be another module's to close.
   * @default true with `forRoot`, false with `forRootAsync`
   */
  readonly closeStore?: boolean;
}

/**
 * A class of the app that makes the module's options, for `forRootAsync`'s `useClass` or
 * `useExisting`.
 *
 * @example
 * ```ts
 * \@Injectable()
 * class WorkforceKitConfig implements WorkforceKitOptionsFactory {
 *   constructor(\@Inject(STORE) private readonly store: WorkforceStore) {}
 *   createWorkforceKitOptions() {
 *     return { store: this.store, auth: createJwtVerifier({ jwksUrl }) };
 *   }
 * }
 * ```
 */
export interface WorkforceKitOptionsFactory {
  /** The module's options, now or later. */
  createWorkforceKitOptions(): WorkforceKitModuleOptions | Promise<WorkforceKitModuleOptions>;
}

/**
 * The options of {@link WorkforceKitModule.forRootAsync}: `imports`, and one of `useFactory` (with
 * `inject`), `useClass` or `useExisting` (a {@link WorkforceKitOptionsFactory}).
 */
export type WorkforceKitModuleAsyncOptions = ConfigurableModuleAsyncOptions<
  WorkforceKitModuleOptions,
  'createWorkforceKitOptions'
>;

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } =
  new ConfigurableModuleBuilder<WorkforceKitModuleOptions>({ moduleName: 'WorkforceKit' })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createWorkforceKitOptions')
    .build();

/** Whether the store was handed to the module itself (`forRoot`), so that it closes it by default. */
export const CLOSE_STORE_BY_DEFAULT = Symbol('WorkforceKitModule closes the store by default');
