// Every framework the reference server runs on, as the settings that pick it, for the suites that
// run on each: every HTTP_FRAMEWORK (NestJS on its default platform, Express), and the NestJS app
// on Nest's Fastify platform (NEST_PLATFORM=fastify) too.
import { HTTP_FRAMEWORKS, type HttpFramework } from '../../src/config.js';

/** A framework of the server: its name in test titles, and its settings. */
export interface FrameworkSetting {
  readonly name: string;
  readonly framework: HttpFramework;
  readonly env: Readonly<Record<string, string>>;
}

export const FRAMEWORK_SETTINGS: readonly FrameworkSetting[] = [
  ...HTTP_FRAMEWORKS.map((framework) => ({
    name: framework,
    framework,
    env: { HTTP_FRAMEWORK: framework },
  })),
  {
    name: 'nestjs on fastify',
    framework: 'nestjs',
    env: { HTTP_FRAMEWORK: 'nestjs', NEST_PLATFORM: 'fastify' },
  },
];
