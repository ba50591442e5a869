// Bare NestJS on its Express platform, the host of the NestJS module's row (wk-nestjs), as bare
// Express is the Express adapter's: a controller answering the bodies of the three routes, as a
// Nest engineer writes one (Nest serialises what a handler returns), no auth, no validation.
import 'reflect-metadata';
import { Controller, Delete, Get, Module, Put } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BODIES, type Listening, ROUTES } from './common.js';

@Controller()
class BareController {
  @Get(ROUTES.getRestaurant)
  restaurant() {
    return BODIES.restaurant;
  }

  @Delete(ROUTES.archiveEmployee)
  archive() {
    return BODIES.archived;
  }

  @Put(ROUTES.unarchiveEmployee)
  unarchive() {
    return BODIES.live;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

/** Nest 11 on @nestjs/platform-express, its defaults (its body parsers included), no log. */
export async function nestBare(): Promise<Listening> {
  const app = await NestFactory.create(BareModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => app.close() };
}
