import type { AbstractHttpAdapter } from '@nestjs/core';
import type { WorkforceRouter } from '@workforce-kit/express-adapter';
import type { WorkforceKitOptions, workforceKit } from '@workforce-kit/fastify-adapter';
import type { ApiOptions } from '@workforce-kit/http';

/** What the module needs of the Fastify instance under Nest's Fastify platform. */
interface FastifyHost {
  register(
    plugin: typeof workforceKit,
    options: WorkforceKitOptions & { readonly prefix: string },
  ): PromiseLike<unknown>;
}

/** The adapter package a platform serves through, or an error that says to install it. */
function adapterPackage<T>(loading: Promise<T>, name: string, platform: string): Promise<T> {
  return loading.catch((error: unknown) => {
    throw new Error(
      `WorkforceKitModule serves on Nest’s ${platform} platform through ${name}: install it`,
      { cause: error },
    );
  });
}

/**
 * Serves the API on Nest's Express platform: the Express adapter's router, mounted under `mount`
 * as an Express app mounts it (`app.use('/api', router)`).
 */
export async function serveOnExpress(
  adapter: AbstractHttpAdapter,
  mount: string,
  options: ApiOptions,
): Promise<void> {
  const { createRouter } = await adapterPackage(
    import('@workforce-kit/express-adapter'),
    '@workforce-kit/express-adapter',
    'Express',
  );
  const router = createRouter(options);
  await router.ready;
  const served = withoutPoweredBy(router);
  if (mount === '') adapter.use(served);
  else adapter.use(mount, served);
}

/**
 * The router, with no `X-Powered-By` on the API's answers (Nest's Express app sets Express's on
 * every response; no other host of the API sends one). A request the router passes on gets it
 * back, for the app's own answers.
 */
function withoutPoweredBy(router: WorkforceRouter): (...args: Parameters<WorkforceRouter>) => void {
  return (req, res, next) => {
    const poweredBy = res.getHeader('X-Powered-By');
    if (poweredBy === undefined) {
      router(req, res, next);
      return;
    }
    res.removeHeader('X-Powered-By');
    router(req, res, (error?: unknown) => {
      res.setHeader('X-Powered-By', poweredBy);
      next(error);
    });
  };
}

/** Serves the API on Nest's Fastify platform: the Fastify adapter's plugin, under `mount`. */
export async function serveOnFastify(
  adapter: AbstractHttpAdapter,
  mount: string,
  options: ApiOptions,
): Promise<void> {
  const { workforceKit } = await adapterPackage(
    import('@workforce-kit/fastify-adapter'),
    '@workforce-kit/fastify-adapter',
    'Fastify',
  );
  await adapter.getInstance<FastifyHost>().register(workforceKit, { ...options, prefix: mount });
}
