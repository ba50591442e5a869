import { loadConfig, startServer } from '@workforce-kit/server';

// The settings as the `workforce-kit` command reads them from the environment (docs/server.md).
const config = loadConfig({ STORE: 'memory', PORT: '0', LOG_LEVEL: 'silent' });
if (config.isErr()) throw new Error(config.error.messages.join('\n'));
const server = await startServer(config.value);

// The development login (on by default on a loopback HOST) issues tokens to the seed's clients.
const client = server.seed.clients.find(
  (candidate) => candidate.clientId === 'harbor-street-integration',
);
const login = await fetch(`${server.url}/authentication/v1/authentication/login`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({
    clientId: client?.clientId,
    clientSecret: client?.clientSecret,
    userAccessType: 'MACHINE_CLIENT',
  }),
});
const { token } = (await login.json()) as { token: { accessToken: string } };
const restaurant = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b'; // of the demo seed
const response = await fetch(`${server.url}/restaurants/v1/restaurants/${restaurant}`, {
  headers: {
    Authorization: `Bearer ${token.accessToken}`,
    'Platform-Restaurant-External-ID': restaurant,
  },
});
const body = (await response.json()) as { general: { name: string } };
console.log(response.status, body.general.name);
console.log((await fetch(`${server.url}/readyz`)).status);
await server.close(); // what SIGTERM does: the requests in flight finish, the store closes
