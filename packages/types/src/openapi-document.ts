/**
 * An OpenAPI 3.1 document, typed as far as the validator and the docs page need: the rest is
 * plain JSON. The contract itself is `openapiDocument`.
 */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly [key: string]: unknown;
  };
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}
