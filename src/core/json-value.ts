/** Any JSON value: what a variant, a `json` flag and an OpenFeature object value hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
