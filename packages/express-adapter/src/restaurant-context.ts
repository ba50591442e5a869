import type { Request } from 'express';

/** The header that names the context restaurant (Node lower-cases header names). */
export const RESTAURANT_HEADER = 'platform-restaurant-external-id';

/** The context restaurant as the request gives it: the raw header value, or empty. */
export function contextOf(req: Request): string {
  const value = req.headers[RESTAURANT_HEADER];
  return typeof value === 'string' ? value : '';
}
