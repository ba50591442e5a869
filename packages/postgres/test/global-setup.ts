// One PostgreSQL 15 server for this project's tests, started and stopped by the tests themselves.
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from '../src/testing/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startPostgresServer();
  project.provide('databaseUrl', server.url);
  return () => server.destroy();
}
