// WorkforceKitModule in Nest apps, on each of Nest's platforms: what is the module's own. Where it
// serves (the global prefix, its own path, the app's routes beside it), its options made from the
// app's providers, Nest's filters, interceptors, pipes and guards leaving the API's answers as
// they are, and the store closed as the app shuts down. What the API answers is the same through
// every adapter and is tested once for all of them, in test/http of the repository (looped over
// both Nest platforms too).
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  Catch,
  Controller,
  type DynamicModule,
  type ExceptionFilter,
  type ExecutionContext,
  Get,
  HttpException,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  type NestApplicationOptions,
  type NestInterceptor,
  Query,
  ValidationPipe,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createMemoryStore, type MemoryStore } from '@workforce-kit/core';
import { aWorld } from '@workforce-kit/core/testing';
import { frameworkErrors } from '@workforce-kit/fastify-adapter';
import {
  RESTAURANT_HEADER,
  TEST_SECRET,
  testApiOptions,
  tokenFor,
} from '@workforce-kit/http/testing';
import { IsOptional, IsString } from 'class-validator';
import type { Observable } from 'rxjs';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createJwtVerifier,
  WorkforceKitModule,
  type WorkforceKitModuleOptions,
  type WorkforceKitOptionsFactory,
} from '../src/index.js';

const world = aWorld();
const token = await tokenFor([world.restaurant.guid]);
const client = { authorization: `Bearer ${token}`, [RESTAURANT_HEADER]: world.restaurant.guid };
const restaurantPath = `/restaurants/v1/restaurants/${world.restaurant.guid}`;
const unarchivePath = `/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`;

const PLATFORMS = {
  express: () => new ExpressAdapter(),
  fastify: () => new FastifyAdapter({ frameworkErrors: frameworkErrors() }),
} as const;
type Platform = keyof typeof PLATFORMS;

/** An app's own route, beside the API. */
@Controller('greeting')
class GreetingController {
  @Get()
  greet() {
    return { greeting: 'hello' };
  }
}

class GreetingQuery {
  @IsOptional()
  @IsString()
  readonly name?: string;
}

/** An app's own route whose query a ValidationPipe checks. */
@Controller('greeting/checked')
class CheckedGreetingController {
  @Get()
  greet(@Query() query: GreetingQuery) {
    return { greeting: `hello ${query.name ?? ''}` };
  }
}

const apps = new Set<INestApplication>();
afterEach(async () => {
  await Promise.all([...apps].map((app) => app.close()));
  apps.clear();
});

/** A Nest app of `module` on the platform, set up by `before` (its global prefix, say), initialized. */
async function start(
  platform: Platform,
  module: DynamicModule,
  before: (app: INestApplication) => void = () => {},
  options: NestApplicationOptions = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(module, PLATFORMS[platform](), {
    logger: false,
    ...options,
  });
  apps.add(app);
  before(app);
  await app.init();
  if (platform === 'fastify') {
    await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  }
  return app;
}

/** An app of the module with `options` and the greeting controller. */
function appModule(options: WorkforceKitModuleOptions): DynamicModule {
  return {
    module: class AppModule {},
    imports: [WorkforceKitModule.forRoot(options)],
    controllers: [GreetingController, CheckedGreetingController],
  };
}

for (const platform of Object.keys(PLATFORMS) as Platform[]) {
  describe(`on Nest's ${platform} platform`, () => {
    it("serves the API under the global prefix and its own path, beside the app's routes", async () => {
      const app = await start(
        platform,
        appModule({ ...testApiOptions(world.seed), path: '/workforce/' }),
        (app) => app.setGlobalPrefix('api'),
      );
      const server = app.getHttpServer();
      const found = await request(server).get(`/api/workforce${restaurantPath}`).set(client);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ guid: world.restaurant.guid });
      // An unknown path under the API's prefixes is its 404, named as the client sent it.
      const unknown = await request(server).get('/api/workforce/labor/v1/nothing').set(client);
      expect(unknown.status).toBe(404);
      expect(unknown.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(unknown.body).toMatchObject({ instance: '/api/workforce/labor/v1/nothing' });
      // Elsewhere, the app's: its routes, and Nest's own 404.
      expect((await request(server).get('/api/greeting')).body).toEqual({ greeting: 'hello' });
      for (const path of [restaurantPath, `/api${restaurantPath}`, `/workforce${restaurantPath}`]) {
        const other = await request(server).get(path).set(client);
        expect(other.status, path).toBe(404);
        expect(other.body, path).toMatchObject({ statusCode: 404, message: `Cannot GET ${path}` });
      }
    });

    it('serves the API outside the global prefix with useGlobalPrefix: false', async () => {
      const app = await start(
        platform,
        appModule({ ...testApiOptions(world.seed), useGlobalPrefix: false }),
        (app) => app.setGlobalPrefix('api'),
      );
      const server = app.getHttpServer();
      expect((await request(server).get(restaurantPath).set(client)).status).toBe(200);
      expect((await request(server).get(`/api${restaurantPath}`).set(client)).body).toMatchObject({
        statusCode: 404,
      });
      expect((await request(server).get('/api/greeting')).status).toBe(200);
    });

    it("takes its options from the app's own providers (forRootAsync)", async () => {
      const STORE = Symbol('store');
      const SETTINGS = Symbol('settings');
      @Module({
        providers: [
          { provide: STORE, useFactory: () => createMemoryStore(world.seed) },
          // As a configuration service would, later: the factory may be async.
          { provide: SETTINGS, useFactory: async () => ({ secret: TEST_SECRET, path: 'hr' }) },
        ],
        exports: [STORE, SETTINGS],
      })
      class DatabaseModule {}

      const app = await start(platform, {
        module: class AppModule {},
        imports: [
          WorkforceKitModule.forRootAsync({
            imports: [DatabaseModule],
            inject: [STORE, SETTINGS],
            useFactory: async (store: MemoryStore, settings: { secret: string; path: string }) => ({
              store,
              auth: createJwtVerifier({ hs256Secret: settings.secret }),
              path: settings.path,
            }),
          }),
        ],
      });
      const answer = await request(app.getHttpServer())
        .put(`/hr${unarchivePath}`)
        .set({ ...client, 'content-type': 'application/json' });
      expect(answer.status).toBe(200);
      // The change is in the app's own store.
      const stored = await app
        .get<MemoryStore>(STORE, { strict: false })
        .employees.find(world.restaurant.guid, { kind: 'guid', guid: world.archivedEmployee.guid });
      expect(stored._unsafeUnwrap()?.deleted).toBe(false);
    });

    it("answers alike with Nest's global filter, interceptor, ValidationPipe and guard", async () => {
      // One clock for both: their answers' dates are the same.
      const clock = { now: () => new Date('2026-03-01T17:00:00.000Z') };
      const plain = await start(platform, appModule(testApiOptions(world.seed, { clock })));
      const options = testApiOptions(world.seed, { clock });
      const enhanced = await start(platform, appModule(options), (app) => {
        app.useGlobalFilters(new EverythingFilter());
        app.useGlobalInterceptors(new StampInterceptor());
        app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
        app.useGlobalGuards(new KeyGuard());
      });
      // They are at work on the app's own routes: the guard refuses, the filter answers.
      const refused = await request(enhanced.getHttpServer()).get('/greeting');
      expect(refused.status).toBe(418);
      expect(refused.body).toEqual({ filtered: 403 });
      const greeted = await request(enhanced.getHttpServer()).get('/greeting').set('x-key', 'open');
      expect(greeted.headers['x-stamped']).toBe('yes');
      const invalid = await request(enhanced.getHttpServer())
        .get('/greeting/checked?unknown=1')
        .set('x-key', 'open');
      expect(invalid.body).toEqual({ filtered: 400 });

      for (const [method, path, headers, body] of API_REQUESTS) {
        const [expected, actual] = await Promise.all(
          [plain, enhanced].map((app) => {
            const test = request(app.getHttpServer())
              [method](path)
              .set({ 'x-request-id': 'same-id', ...headers });
            return body === undefined ? test : test.send(body);
          }),
        );
        const label = `${method.toUpperCase()} ${path}`;
        // The API's answers: its request id, and problem details for the errors.
        expect(actual?.headers['x-request-id'], label).toBe('same-id');
        if ((actual?.status ?? 0) >= 400 && method !== 'head') {
          expect(actual?.headers['content-type'], label).toMatch(/^application\/problem\+json/);
        }
        expect(actual?.status, label).toBe(expected?.status);
        expect(comparable(actual?.headers), label).toEqual(comparable(expected?.headers));
        expect(actual?.text, label).toBe(expected?.text);
      }
    });

    it('answers a request refused on its head without waiting for its body', async () => {
      const app = await start(platform, appModule(testApiOptions(world.seed)));
      await app.listen(0, '127.0.0.1');
      // Its body never comes: a body parser in front of the API would wait for it.
      const answered = await unsentBodyAnswer(await app.getUrl(), unarchivePath, {
        ...client,
        authorization: 'Bearer not.a.jwt',
        'content-type': 'application/json',
        'content-length': '2',
      });
      expect(answered).toBe(401);
    });

    it("sends no X-Powered-By with the API's answers, and leaves the app's own as they are", async () => {
      const app = await start(platform, appModule(testApiOptions(world.seed)));
      const server = app.getHttpServer();
      const answers = [
        await request(server).get(restaurantPath).set(client),
        await request(server).get(restaurantPath),
        await request(server).get('/labor/v1/nothing').set(client),
        await request(server)
          .put(unarchivePath)
          .set({ ...client, 'content-type': 'application/json' })
          .send('{}'),
      ];
      expect(answers.map(({ status }) => status)).toEqual([200, 401, 404, 200]);
      for (const answer of answers) {
        const label = String(answer.status);
        expect(answer.headers['x-request-id'], label).toBeTruthy();
        expect(answer.headers['x-powered-by'], label).toBeUndefined();
      }
      // The app's own routes keep the platform's default: Express names itself, Fastify does not.
      const own = await request(server).get('/greeting');
      expect(own.headers['x-powered-by']).toBe(platform === 'express' ? 'Express' : undefined);
    });

    it("lets the app's enableCors() answer the API's preflights and mark its answers", async () => {
      const app = await start(platform, appModule(testApiOptions(world.seed)), (app) => {
        app.setGlobalPrefix('api');
        // The methods said: @fastify/cors allows only GET, HEAD and POST by default.
        app.enableCors({
          origin: FRONT,
          methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
          exposedHeaders: ['X-Request-Id'],
        });
      });
      const server = app.getHttpServer();
      // Without CORS the API answers these 405 (its method table has no OPTIONS).
      for (const [method, path] of [
        ['GET', restaurantPath],
        ['PUT', unarchivePath],
      ] as const) {
        const preflight = await request(server)
          .options(`/api${path}`)
          .set({
            origin: FRONT,
            'access-control-request-method': method,
            'access-control-request-headers': `authorization,${RESTAURANT_HEADER}`,
          });
        expect(preflight.status, method).toBe(204);
        expect(preflight.headers['access-control-allow-origin'], method).toBe(FRONT);
        expect(preflight.headers['access-control-allow-methods'], method).toContain(method);
        expect(preflight.headers['access-control-allow-headers'], method).toBe(
          `authorization,${RESTAURANT_HEADER}`,
        );
      }
      const found = await request(server)
        .get(`/api${restaurantPath}`)
        .set({ ...client, origin: FRONT });
      expect(found.status).toBe(200);
      expect(found.headers['access-control-allow-origin']).toBe(FRONT);
      expect(found.headers['access-control-expose-headers']).toBe('X-Request-Id');
      // A refusal too, so that the page can read its problem.
      const refused = await request(server).get(`/api${restaurantPath}`).set({ origin: FRONT });
      expect(refused.status).toBe(401);
      expect(refused.headers['access-control-allow-origin']).toBe(FRONT);
      // The body of a cross-origin change is still not read before its token is checked.
      await app.listen(0, '127.0.0.1');
      const answered = await unsentBodyAnswer(await app.getUrl(), `/api${unarchivePath}`, {
        ...client,
        origin: FRONT,
        authorization: 'Bearer not.a.jwt',
        'content-type': 'application/json',
        'content-length': '2',
      });
      expect(answered).toBe(401);
    });

    it("lets NestFactory's cors option reach the API", async () => {
      const app = await start(platform, appModule(testApiOptions(world.seed)), undefined, {
        cors: true,
      });
      const preflight = await request(app.getHttpServer())
        .options(restaurantPath)
        .set({ origin: FRONT, 'access-control-request-method': 'GET' });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      const found = await request(app.getHttpServer())
        .get(restaurantPath)
        .set({ ...client, origin: FRONT });
      expect(found.status).toBe(200);
      expect(found.headers['access-control-allow-origin']).toBe('*');
    });

    it('closes the store when the app closes, after its server', async () => {
      const store = closeRecordingStore();
      const app = await start(platform, appModule(testApiOptions(world.seed, { store })));
      await app.listen(0, '127.0.0.1');
      const url = await app.getUrl();
      expect((await fetch(`${url}${restaurantPath}`, { headers: client })).status).toBe(200);
      expect(store.closes).toEqual([]);
      await app.close();
      apps.delete(app);
      expect(store.closes).toEqual([{ serverListening: false }]);
      function closeRecordingStore() {
        const inner = createMemoryStore(world.seed);
        const closes: { serverListening: boolean }[] = [];
        return Object.assign(inner, {
          closes,
          close: async () => {
            closes.push({ serverListening: app.getHttpServer().listening });
            await createMemoryStore().close();
          },
        });
      }
    });

    it('closes the store on a SIGTERM with enableShutdownHooks', async () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--conditions=@workforce-kit/source', SHUTDOWN_APP, platform],
        { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const ended = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.once('exit', (code, signal) => resolve(signal ?? code)),
      );
      try {
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', () => {
            const found = /listening on (\S+)/.exec(output)?.[1];
            if (found !== undefined) resolve(found);
          });
          void ended.then(() => reject(new Error(`the app ended before it listened:\n${output}`)));
        });
        // Its store is empty: the API's answer is a 404 problem.
        const served = await fetch(`${url}${restaurantPath}`, { headers: client });
        expect(served.status).toBe(404);
        expect(served.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(output).not.toContain('store closed');
        child.kill('SIGTERM');
        // Nest closes the app, then ends the process with the signal it had.
        expect(await ended).toBe('SIGTERM');
        expect(output).toContain('store closed');
      } finally {
        child.kill('SIGKILL');
      }
    });
  });
}

describe('forRootAsync with an options class of the app', () => {
  const STORE = Symbol('store');

  @Injectable()
  class WorkforceKitConfig implements WorkforceKitOptionsFactory {
    constructor(@Inject(STORE) private readonly store: MemoryStore) {}

    createWorkforceKitOptions(): WorkforceKitModuleOptions {
      return {
        store: this.store,
        auth: createJwtVerifier({ hs256Secret: TEST_SECRET }),
        path: 'hr',
      };
    }
  }

  @Module({
    providers: [{ provide: STORE, useFactory: () => createMemoryStore(world.seed) }],
    exports: [STORE],
  })
  class DatabaseModule {}

  @Module({
    imports: [DatabaseModule],
    providers: [WorkforceKitConfig],
    exports: [WorkforceKitConfig],
  })
  class ConfigModule {}

  const ways: [string, DynamicModule][] = [
    [
      'useClass',
      WorkforceKitModule.forRootAsync({ imports: [DatabaseModule], useClass: WorkforceKitConfig }),
    ],
    [
      'useExisting',
      WorkforceKitModule.forRootAsync({ imports: [ConfigModule], useExisting: WorkforceKitConfig }),
    ],
  ];
  for (const [way, module] of ways) {
    it(`serves the options its ${way} makes`, async () => {
      const app = await start('express', { module: class AppModule {}, imports: [module] });
      const found = await request(app.getHttpServer()).get(`/hr${restaurantPath}`).set(client);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ guid: world.restaurant.guid });
    });
  }
});

describe('closeStore', () => {
  const auth = createJwtVerifier({ hs256Secret: TEST_SECRET });
  const cases: [string, (store: MemoryStore) => DynamicModule, boolean][] = [
    [
      'forRoot closes the store it was handed',
      (store) => WorkforceKitModule.forRoot({ store, auth }),
      true,
    ],
    [
      'forRoot with closeStore: false leaves it open',
      (store) => WorkforceKitModule.forRoot({ store, auth, closeStore: false }),
      false,
    ],
    [
      'forRootAsync leaves the store it was given open',
      (store) => WorkforceKitModule.forRootAsync({ useFactory: () => ({ store, auth }) }),
      false,
    ],
    [
      'forRootAsync with closeStore: true closes it',
      (store) =>
        WorkforceKitModule.forRootAsync({
          useFactory: async () => ({ store, auth, closeStore: true }),
        }),
      true,
    ],
  ];
  for (const [title, moduleOf, closed] of cases) {
    it(title, async () => {
      const store = createMemoryStore(world.seed);
      const app = await start('express', {
        module: class AppModule {},
        imports: [moduleOf(store)],
      });
      await app.close();
      apps.delete(app);
      expect((await store.ping()).isErr()).toBe(closed);
    });
  }
});

it('leaves an application context without HTTP alone, and closes its store', async () => {
  const store = createMemoryStore(world.seed);
  const context = await NestFactory.createApplicationContext(
    WorkforceKitModule.forRoot(testApiOptions(world.seed, { store })),
    { logger: false },
  );
  await context.close();
  expect((await store.ping()).isErr()).toBe(true);
});

/** The origin of a web app that calls the API from the browser. */
const FRONT = 'http://front.example';

const SHUTDOWN_APP = fileURLToPath(new URL('./fixtures/shutdown-app.ts', import.meta.url));

/** Requests of every kind of answer: a 200, a HEAD, and problems of each step of the pipeline. */
const API_REQUESTS: [
  'get' | 'put' | 'post' | 'head' | 'delete',
  string,
  Record<string, string>,
  string | undefined,
][] = [
  ['get', restaurantPath, client, undefined],
  ['head', restaurantPath, client, undefined],
  ['get', `${restaurantPath}?includeArchived=maybe`, client, undefined],
  ['get', restaurantPath, {}, undefined],
  ['get', '/restaurants/v1/restaurants/not-a-guid', client, undefined],
  ['post', restaurantPath, client, undefined],
  ['get', '/labor/v1/nothing', client, undefined],
  ['delete', '/labor/v1/shifts/%E0%A4%A', client, undefined],
  ['put', unarchivePath, { ...client, 'content-type': 'text/plain' }, 'x'],
  ['put', unarchivePath, { ...client, 'content-type': 'application/json' }, '{"broken'],
  ['put', unarchivePath, { ...client, 'content-type': 'application/json' }, 'x'.repeat(20_000)],
  ['put', unarchivePath, { ...client, 'content-type': 'application/json' }, '{}'],
  ['put', unarchivePath, { ...client, 'content-type': 'application/json' }, '{}'],
];

/**
 * The status of a request whose head is sent and whose body never is, or 'no answer' after 5 s.
 */
async function unsentBodyAnswer(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<number | 'no answer'> {
  const sent = httpRequest(`${url}${path}`, { method: 'PUT', headers });
  sent.on('error', () => {});
  sent.flushHeaders();
  try {
    return await Promise.race([
      new Promise<number>((resolve) =>
        sent.once('response', (res) => resolve(res.statusCode ?? 0)),
      ),
      delay(5_000, 'no answer' as const),
    ]);
  } finally {
    sent.destroy();
  }
}

/** Headers that are the same for the same answer (the date is the clock's). */
function comparable(headers: Record<string, string> | undefined): Record<string, string> {
  const { date: _date, ...rest } = headers ?? {};
  return rest;
}

/** Answers every exception with 418 and the status it had. */
@Catch()
class EverythingFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    // Express's response and Fastify's reply alike.
    host.switchToHttp().getResponse().status(418).send({ filtered: status });
  }
}

/** Stamps every answer it sees. */
@Injectable()
class StampInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response = context.switchToHttp().getResponse();
    if ('header' in response && typeof response.header === 'function') {
      response.header('x-stamped', 'yes');
    }
    return next.handle();
  }
}

/** Lets in the requests with the key. */
@Injectable()
class KeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest().headers['x-key'] === 'open';
  }
}
