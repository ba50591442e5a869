import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import {
  type ArgumentsHost,
  BadRequestException,
  type DynamicModule,
  type ExceptionFilter,
  type LoggerService,
  type MiddlewareConsumer,
  NotFoundException,
  RequestMethod,
} from '@nestjs/common';
import { type AbstractHttpAdapter, NestFactory } from '@nestjs/core';
import { INTERNAL_ERROR } from '@workforce-kit/http/adapter';
import { WorkforceKitModule } from '@workforce-kit/nestjs';
import type { NestPlatform } from './config.js';
import {
  type AppParts,
  gated,
  hostRouter,
  UNDECODABLE_PATH,
  writeHostAnswer,
  writeNotFound,
} from './host-routes.js';
import { StartupError } from './startup-error.js';

/** Node's request under the platform's: Express's is Node's, Fastify's wraps it. */
type PlatformRequest = IncomingMessage & { readonly raw?: IncomingMessage };
/** Node's response under the platform's, and Fastify's way to take the reply over. */
type PlatformResponse = ServerResponse & {
  readonly raw?: ServerResponse;
  hijack?(): void;
};

/**
 * The app's answers to what Nest's router throws: its 404 for a path no route takes (after the
 * body, which nothing read, has arrived), a 400 for a path that does not percent-decode, and a
 * logged 500 for anything else, as problem details with the security headers, written on Node's
 * response.
 */
function problemFilter(logger: AppParts['logger']): ExceptionFilter {
  return {
    catch(exception: unknown, host: ArgumentsHost) {
      const http = host.switchToHttp();
      const request = http.getRequest<PlatformRequest>();
      const response = http.getResponse<PlatformResponse>();
      const req = request.raw ?? request;
      const res = response.raw ?? response;
      response.hijack?.();
      if (exception instanceof NotFoundException) {
        writeNotFound(req, res);
        return;
      }
      // The app parses no body and validates nothing: Nest's one 400 is Express's refusal of a
      // path that does not percent-decode (its URIError), as it matches a route.
      if (exception instanceof BadRequestException) {
        writeHostAnswer(req, res, { problem: UNDECODABLE_PATH });
        return;
      }
      logger.error({ err: exception, method: req.method, path: req.url }, 'unexpected error');
      writeHostAnswer(req, res, { problem: INTERNAL_ERROR });
    },
  };
}

/** Nest's own log lines in the server's log: its warnings and errors. */
function nestLogger(logger: AppParts['logger']): LoggerService {
  return {
    log: () => {},
    warn: (message: unknown) => logger.warn({ context: 'nest' }, String(message)),
    error: (message: unknown, ...rest: unknown[]) =>
      logger.error({ context: 'nest', detail: rest }, String(message)),
  };
}

/** The platform's adapter: Express's own app (without `X-Powered-By`), or Fastify on `server`. */
async function platformOf(
  platform: NestPlatform,
  parts: AppParts,
  server: Server,
  take: (listener: RequestListener) => void,
): Promise<AbstractHttpAdapter> {
  if (platform === 'fastify') {
    const [{ FastifyAdapter }, { hostFrameworkErrors }] = await Promise.all([
      import('@nestjs/platform-fastify'),
      import('./fastify-app.js'),
    ]);
    return new FastifyAdapter({
      frameworkErrors: hostFrameworkErrors(parts.logger),
      // Fastify serves on the bound server (its serverFactory), as the Fastify app does.
      serverFactory: (handler: RequestListener) => {
        take(handler);
        return server;
      },
    });
  }
  const [{ ExpressAdapter }, { default: express }] = await Promise.all([
    import('@nestjs/platform-express'),
    import('express'),
  ]);
  const app = express();
  app.disable('x-powered-by');
  take(app);
  return new ExpressAdapter(app);
}

/**
 * The reference server's app on NestJS, on Nest's Express platform or its Fastify platform: the
 * API's module (`@workforce-kit/nestjs`; its answers carry the security headers through its
 * `responseHeaders`), the host routes as a Nest middleware (with the security headers and a
 * request id), and Nest's 404 and errors as problem details through a global exception filter.
 * Nest reads no body (`bodyParser: false`): the API reads its own, the login its own raw. While
 * the store opens, a gate in front of the app answers all but `/healthz` and `/metrics` with a
 * 503; once it is open, requests go straight to the app.
 */
export async function nestApp(
  parts: AppParts,
  platform: NestPlatform,
  server: Server,
): Promise<RequestListener> {
  let listener: RequestListener | undefined;
  const adapter = await platformOf(platform, parts, server, (taken) => {
    listener = taken;
  });
  const host = hostRouter(parts);
  class ReferenceAppModule {
    configure(consumer: MiddlewareConsumer): void {
      consumer
        .apply((req: PlatformRequest, res: ServerResponse, next: () => void) => {
          const sent = (req as { originalUrl?: string }).originalUrl ?? req.url;
          if (!host(req, res, sent)) next();
        })
        .forRoutes({ path: '*path', method: RequestMethod.ALL });
    }
  }
  const module: DynamicModule = {
    module: ReferenceAppModule,
    imports: [WorkforceKitModule.forRoot(parts.api)],
  };
  const app = await NestFactory.create(module, adapter, {
    bodyParser: false,
    logger: nestLogger(parts.logger),
  });
  app.useGlobalFilters(problemFilter(parts.logger));
  await app.init();
  if (platform === 'fastify') {
    await (adapter.getInstance() as { ready(): PromiseLike<unknown> }).ready();
  }
  if (listener === undefined) throw new StartupError('Nest did not take the HTTP server');
  return gated(parts, listener);
}
