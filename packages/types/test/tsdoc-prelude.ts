// What the TSDoc examples of packages/types/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).

/** An OAuth 2.0 access token for the API. */
export declare const accessToken: string;
/** A restaurant's GUID. */
export declare const restaurantGuid: string;
