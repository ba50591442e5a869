import type { Guid } from '@workforce-kit/core';
import type { Seed } from '@workforce-kit/seed-file';
import { LOGIN_PATH } from './dev-login.js';

/** How the session logs in: with the development login, reading the secret from the seed file. */
export interface CurlSessionLogin {
  /** The seed file as the session's shell will find it (absolute, or relative to its folder). */
  readonly seedFile: string;
}

/**
 * A copy-paste curl session against a running server, made from its seed: a token from the
 * development login (when `login` is given), then each operation on the seed's records. The
 * client's secret is read from the seed file by the session, never printed. Empty lines and `#`
 * comments separate the steps. Uses only curl and node.
 */
export function curlSession(
  baseUrl: string,
  seed: Seed,
  login: CurlSessionLogin | undefined,
): string {
  const client =
    seed.clients.find((c) => c.scopes.length === 3 && !c.restaurants.includes('*')) ??
    seed.clients[0];
  const permitted = (guid: Guid) =>
    client === undefined || client.restaurants.includes('*') || client.restaurants.includes(guid);
  const restaurant = seed.restaurants.find((r) => !r.general.archived && permitted(r.guid));
  if (restaurant === undefined) return '# The seed has no restaurant to show.';
  const archived = seed.employees.find((e) => e.restaurantGuid === restaurant.guid && e.deleted);
  const shift = seed.shifts.find(
    (s) => s.restaurantGuid === restaurant.guid && s.externalId !== undefined && !s.deleted,
  );
  const headers = `-H "Authorization: Bearer $TOKEN" -H "Platform-Restaurant-External-ID: $RESTAURANT"`;
  const lines = [
    login !== undefined && client !== undefined
      ? [
          `# A token for the client ${client.clientId}, from the development login (the login body, with the client's secret, is read from the seed file)`,
          `LOGIN=$(node -pe 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).clients.find((c) => c.clientId === process.argv[2]); JSON.stringify({ clientId: c.clientId, clientSecret: c.clientSecret, userAccessType: "MACHINE_CLIENT" })' ${shellWord(login.seedFile)} ${shellWord(client.clientId)})`,
          `TOKEN=$(curl -sS -X POST ${baseUrl}${LOGIN_PATH} -H 'Content-Type: application/json' -d "$LOGIN" \\`,
          `  | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).token.accessToken')`,
        ].join('\n')
      : '# A token from your identity provider\nTOKEN=...',
    `RESTAURANT=${restaurant.guid}`,
    `# The restaurant's configuration\ncurl -sS -w '\\n' ${baseUrl}/restaurants/v1/restaurants/$RESTAURANT ${headers}`,
    archived &&
      [
        `# Unarchive ${archived.firstName ?? 'an employee'} (archived in the seed), then archive again`,
        `curl -sS -w '\\n' -X PUT ${baseUrl}/labor/v1/employees/${archived.guid}/unarchive ${headers} -H 'Content-Type: application/json'`,
        `curl -sS -w '\\n' -X DELETE ${baseUrl}/labor/v1/employees/${archived.guid} ${headers}`,
      ].join('\n'),
    shift &&
      [
        '# Delete a shift by its external id, twice: the second call changes nothing',
        `curl -sS -w '\\n' -X DELETE ${baseUrl}/labor/v1/shifts/${shift.externalId} ${headers}`,
        `curl -sS -w '\\n' -X DELETE ${baseUrl}/labor/v1/shifts/${shift.externalId} ${headers}`,
      ].join('\n'),
  ];
  return lines
    .filter((line): line is string => typeof line === 'string' && line !== '')
    .join('\n\n');
}

/** A value as one shell word: single-quoted unless it needs no quoting. */
function shellWord(value: string): string {
  return /^[\w./@:-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
