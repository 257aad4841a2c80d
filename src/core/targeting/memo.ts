/**
 * What evaluation derives from a user's text attribute (its lowercase, number, time, version,
 * address), remembered by text: evaluating allocates nothing for the texts it has seen. Up to
 * 256 texts of up to 64 characters per memo; a full memo starts over. Longer texts are derived
 * afresh every time. `derive` never answers `undefined` (a text that is not one is `null` or
 * `NaN`), so that one lookup tells whether a text is remembered.
 */
export function memoized<T>(derive: (text: string) => T): (text: string) => T {
  const memo = new Map<string, T>();
  // The text derived last, and what: clauses in a row on one attribute look it up once.
  let last: string | undefined;
  let lastValue: T;
  return (text) => {
    if (text === last) return lastValue;
    let value = memo.get(text);
    if (value === undefined) {
      value = derive(text);
      if (text.length > 64) return value;
      if (memo.size >= 256) memo.clear();
      memo.set(text, value);
    }
    last = text;
    lastValue = value;
    return value;
  };
}
