/**
 * One canonical JSON: object keys sorted, properties whose value is `undefined` left out (as
 * `JSON.stringify` leaves them out), so two values that are the same JSON whatever the order of
 * their keys give the same text. The server compares targeting fields and builds OFREP's bulk
 * ETag with it; the dashboard says what changed with it.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const fields: string[] = [];
    for (const key of Object.keys(record).sort())
      if (record[key] !== undefined) fields.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether `a` and `b` are the same JSON, whatever the order of their objects' keys. */
export const sameJson = (a: unknown, b: unknown): boolean => a === b || canonicalJson(a) === canonicalJson(b);
