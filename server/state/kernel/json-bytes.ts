/**
 * Bytes of a stored value's JSON (UTF-8), measured once per object: stored flags, segments and
 * history entries never change in place (a write makes a new object), so the size of each is
 * computed once however often a bound adds it up (`../flags/size-check.ts`, `../flags/history.ts`; §3.4).
 */
const sizes = new WeakMap<object, number>();

export function jsonBytes(value: object): number {
  let size = sizes.get(value);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(value));
    sizes.set(value, size);
  }
  return size;
}
