import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Runs middlewares in order, as Express does, and hands an error or the end to `done`. */
export function compose(
  middlewares: readonly RequestHandler[],
): (req: Request, res: Response, done: NextFunction) => void {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== 'route') {
        done(error);
        return;
      }
      const middleware = middlewares[index++];
      if (middleware === undefined) {
        done();
        return;
      }
      try {
        const pending: unknown = middleware(req, res, next);
        if (pending instanceof Promise) pending.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}
