import { type DynamicModule, Module } from '@nestjs/common';
import {
  CLOSE_STORE_BY_DEFAULT,
  ConfigurableModuleClass,
  type WorkforceKitModuleAsyncOptions,
  type WorkforceKitModuleOptions,
} from './module-definition.js';
import { workforceKitService } from './workforce-kit-service.js';

/**
 * The workforce-kit API as a NestJS module, on Nest's Express or Fastify platform, under the app's
 * global prefix. Nest's guards, interceptors, pipes and filters do not apply to its paths: the API
 * authenticates and answers them itself (docs/embedding.md, "In a NestJS app").
 *
 * @example
 * ```ts
 * \@Module({ imports: [WorkforceKitModule.forRoot({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) })] })
 * class AppModule {}
 *
 * const app = await NestFactory.create(AppModule);
 * app.setGlobalPrefix('api'); // the API at /api/labor/v1/…, /api/restaurants/v1/…
 * app.enableShutdownHooks(); // on SIGTERM, the server stops, then the module closes the store
 * await app.listen(8080);
 * ```
 */
@Module({ providers: [workforceKitService] })
export class WorkforceKitModule extends ConfigurableModuleClass {
  /**
   * The module with its options given.
   *
   * @param options - the store, the token verifier, the limits (see `ApiOptions`), and where to serve
   * @returns the dynamic module, for a module's `imports`
   */
  static override forRoot(options: WorkforceKitModuleOptions): DynamicModule {
    return asThisModule(ConfigurableModuleClass.forRoot(options), true);
  }

  /**
   * The module with its options made from the app's own providers.
   *
   * @param options - the modules to import, and how to make the options
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
  static override forRootAsync(options: WorkforceKitModuleAsyncOptions): DynamicModule {
    return asThisModule(ConfigurableModuleClass.forRootAsync(options), false);
  }
}

/** The builder's definition as this module's, which closes the store by default or not. */
function asThisModule(generated: DynamicModule, closeStore: boolean): DynamicModule {
  const providers = [
    ...(generated.providers ?? []),
    { provide: CLOSE_STORE_BY_DEFAULT, useValue: closeStore },
  ];
  return { ...generated, module: WorkforceKitModule, providers };
}
