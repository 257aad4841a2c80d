/**
 * The `fetch` of a client created with `holdProcess: false`, whose connections must not keep
 * the process alive. Outside Node there is no process to hold: the platform's `fetch` serves.
 * The Node build binds `unheld-fetch-node.ts` instead (tsup.config.ts).
 */
export const unheldFetch: typeof fetch | undefined = undefined;
