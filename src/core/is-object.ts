/** Whether `value` is a JSON object (not `null`, not an array): the one such check of the code base. */
export const isObject = <T = unknown>(value: unknown): value is Record<string, T> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
