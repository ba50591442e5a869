import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, WorkforceKitModule } from '@workforce-kit/nestjs';
import { parseSeed } from '@workforce-kit/seed-file';
import { SignJWT } from 'jose';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const seed = parseSeed(
  { restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }] },
  new Date(),
)._unsafeUnwrap();
const secret = 'a-development-secret-of-32-characters-or-more';

@Module({
  imports: [
    WorkforceKitModule.forRoot({
      store: createMemoryStore(seed),
      auth: createJwtVerifier({ hs256Secret: secret }), // or { jwksUrl, issuer, audience }
    }),
  ],
})
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: false });
app.setGlobalPrefix('api'); // the API's paths under it, as your controllers'
app.enableShutdownHooks(); // on SIGTERM, the server stops, then the module closes the store
await app.listen(0, '127.0.0.1');
const base = await app.getUrl();

// A token as your identity provider issues it: the scopes, and the restaurants it may act for.
const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));
const response = await fetch(`${base}/api/restaurants/v1/restaurants/${HARBOR}`, {
  headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': HARBOR },
});
const restaurant = (await response.json()) as { general: { name: string } };
console.log(response.status, restaurant.general.name);
// Outside the API's paths, the app's own: here Nest's 404.
console.log((await fetch(`${base}/api/your/own/route`)).status);
await app.close();
