// The API reference's settings shared by every package (packages/*/typedoc.json extend them):
// every export documented, every link resolved, every type a public signature names exported,
// and any warning fails the build (`pnpm docs`, run by `pnpm check`).
import { OptionDefaults } from 'typedoc';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
const config = {
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  // openapi-typescript writes the spec's `description` and `const` as these tags.
  blockTags: [...OptionDefaults.blockTags, '@description', '@constant'],
  validation: { notExported: true, invalidLink: true, invalidPath: true, notDocumented: true },
  requiredToBeDocumented: ['Function', 'Class', 'Interface', 'TypeAlias', 'Variable', 'Enum'],
  treatWarningsAsErrors: true,
  // No "Defined in" links to a source host: the reference is built locally (docs/api is not
  // published), and a clone whose origin is not a GitHub, GitLab or Bitbucket address (a clone
  // of a local path, as CI makes) would otherwise warn, failing the build.
  disableSources: true,
};

export default config;
