// A Nest app's modules and its start (app.module.ts and main.ts, in one file here).
import 'reflect-metadata';
import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Inject,
  Injectable,
  Module,
} from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import type { WorkforceStore } from '@workforce-kit/core';
import {
  createJwtVerifier,
  type JwtVerifierOptions,
  type RateLimitOptions,
  WorkforceKitModule,
} from '@workforce-kit/nestjs';
import { createPostgresStore } from '@workforce-kit/postgres';
import pg from 'pg';

/** The app's configuration (a ConfigService of @nestjs/config serves as well). */
export interface Settings {
  readonly databaseUrl: string;
  readonly jwt: JwtVerifierOptions;
  readonly rateLimit?: RateLimitOptions | false;
  readonly adminKey: string;
}
export const SETTINGS = Symbol('SETTINGS');
export const STORE = Symbol('STORE');

@Module({
  providers: [
    {
      provide: SETTINGS,
      useFactory: (): Settings => ({
        databaseUrl: process.env.DATABASE_URL ?? 'postgres://localhost/app',
        jwt: {
          jwksUrl: 'https://id.example.com/.well-known/jwks.json',
          issuer: 'https://id.example.com/',
          audience: 'workforce-api',
        },
        adminKey: process.env.ADMIN_KEY ?? '',
      }),
    },
  ],
  exports: [SETTINGS],
})
export class ConfigModule {}

// The store over the app's own database: its connection pool, closed with the store.
@Module({
  imports: [ConfigModule],
  providers: [
    {
      provide: STORE,
      inject: [SETTINGS],
      useFactory: (settings: Settings): Promise<WorkforceStore> =>
        createPostgresStore({
          client: new pg.Pool({ connectionString: settings.databaseUrl }),
          ownsClient: true,
        }),
    },
  ],
  exports: [STORE],
})
export class DatabaseModule {}

/** The app's own guard, on every route of its controllers (not on the API's). */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  canActivate(context: ExecutionContext): boolean {
    const key = context.switchToHttp().getRequest().headers['x-admin-key'];
    return this.settings.adminKey !== '' && key === this.settings.adminKey;
  }
}

@Controller('admin')
export class AdminController {
  @Get('status')
  status() {
    return { status: 'ok' };
  }
}

@Module({
  imports: [
    WorkforceKitModule.forRootAsync({
      imports: [ConfigModule, DatabaseModule],
      inject: [STORE, SETTINGS],
      useFactory: (store: WorkforceStore, settings: Settings) => ({
        store,
        closeStore: true, // the pool's only user: the module closes it as the app shuts down
        auth: createJwtVerifier(settings.jwt),
        ...(settings.rateLimit === undefined ? {} : { rateLimit: settings.rateLimit }),
        path: 'workforce', // under the global prefix: /api/workforce/labor/v1/…
      }),
    }),
    ConfigModule,
  ],
  controllers: [AdminController],
  providers: [{ provide: APP_GUARD, useClass: AdminKeyGuard }],
})
export class AppModule {}

export async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix('api');
  // The back office's browser app, on its own origin, calls the API: its preflights are answered.
  app.enableCors({
    origin: 'https://backoffice.example.com',
    methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
    exposedHeaders: ['X-Request-Id'],
  });
  app.enableShutdownHooks();
  await app.listen(3000);
}
