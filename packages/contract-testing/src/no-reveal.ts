// The no-reveal rule: no answer in one restaurant's context shows another restaurant's texts
// (names, external ids, e-mail addresses, GUIDs of its records) that the request did not carry.
import type { Answer } from './answer-checks.js';
import type { Engine } from './engine.js';

/** Every string in a value, at any depth. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** What an answer in `context`'s restaurant must not mention: other restaurants' texts. */
function secretsFor(engine: Engine, context: string): readonly string[] {
  const known = engine.secrets.get(context);
  if (known !== undefined) return known;
  const { world } = engine;
  const dataOf = (guid: string) => [
    world.restaurants.find((r) => r.guid === guid)?.fields ?? { guid },
    ...[...world.employees, ...world.shifts]
      .filter((r) => r.restaurant === guid)
      .map((r) => ({ guid: r.guid, ...r.fields })),
  ];
  const own = stringsIn(dataOf(context)).join('\n').toLowerCase();
  const constants = new Set(
    ['Employee', 'Shift']
      .flatMap((name) => stringsIn(engine.spec.componentSchema(name)))
      .map((text) => text.toLowerCase()),
  );
  const secrets = [
    ...new Set(
      world.restaurants.filter((r) => r.guid !== context).flatMap((r) => stringsIn(dataOf(r.guid))),
    ),
  ].filter(
    (text) =>
      text.length >= 4 &&
      !/^\d{4}-\d{2}-\d{2}T/.test(text) &&
      !constants.has(text.toLowerCase()) &&
      !own.includes(text.toLowerCase()),
  );
  engine.secrets.set(context, secrets);
  return secrets;
}

/**
 * Where `text` (lower case) mentions `secret` (lower case) as a whole token: not inside a longer
 * run of letters and digits, so that another restaurant's "10042" is not found inside a random
 * request id or a timestamp that happens to contain those digits.
 */
export function mentionsToken(text: string, secret: string): boolean {
  const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + secret.length])) return true;
  }
  return false;
}

/**
 * No answer in a context shows another restaurant's texts that the request did not carry. The
 * answer's own request id (the header, echoed in a problem's `requestId`) is the server's random
 * value, not data, and is left out.
 */
export function checkNoReveal(engine: Engine, context: string, answer: Answer): void {
  const req = answer.request;
  let carried = Object.values(req.headers).join('\n');
  try {
    carried += `\n${decodeURIComponent(req.path)}`;
  } catch {
    carried += `\n${req.path}`;
  }
  carried = carried.toLowerCase();
  const requestId = answer.response.headers['x-request-id'];
  let said = answer.response.text.toLowerCase();
  if (typeof requestId === 'string' && requestId !== '') {
    said = said.replaceAll(requestId.toLowerCase(), '');
  }
  const revealed = secretsFor(engine, context.toLowerCase()).find((secret) => {
    const lower = secret.toLowerCase();
    return !carried.includes(lower) && mentionsToken(said, lower);
  });
  answer.check(
    revealed === undefined,
    'no-reveal',
    () => `the answer mentions ${JSON.stringify(revealed)} of another restaurant: ${answer.show()}`,
  );
}
