/**
 * Targeting: a segment and a string flag with a rule, made with the management client, then
 * served locally by the SDK client, with why.
 *
 * targetingExample({ baseUrl: 'http://127.0.0.1:8787/api/v1', fullKey, readKey });
 */
import { createClient, createManagementClient, type FlagDetail } from 'flagwire';

export async function targetingExample(options: {
  baseUrl: string;
  fullKey: string;
  readKey: string;
}): Promise<FlagDetail<string>[]> {
  const admin = createManagementClient({ baseUrl: options.baseUrl, apiKey: options.fullKey });
  const staff = {
    included: ['ann'],
    rules: [{ clauses: [{ attribute: 'email', op: 'endsWith' as const, values: ['@example.com'] }] }],
  };
  await admin.segments.create({ key: 'staff', ...staff }).catch(() => admin.segments.update('staff', staff));
  const variants = { blue: 'blue', red: 'red' }; // fixed once created
  const banner = {
    offVariant: 'red',
    fallthrough: { variant: 'red' },
    rules: [
      { id: 'staff', clauses: [{ op: 'inSegment' as const, values: ['staff'] }], serve: { variant: 'blue' } },
    ],
  };
  await admin.flags
    .create({ key: 'banner-colour', type: 'string', variants, ...banner })
    .catch(() => admin.flags.update('banner-colour', banner));
  await admin.flags.update('banner-colour', { enabled: true });

  const client = createClient({ baseUrl: options.baseUrl, apiKey: options.readKey });
  await client.ready({ timeoutMs: 5000 });
  const answers = [
    client.getDetail('banner-colour', 'ann', 'red'),
    client.getDetail('banner-colour', { key: 'bo', email: 'bo@example.com' }, 'red'),
    client.getDetail('banner-colour', { key: 'cy', email: 'cy@elsewhere.org' }, 'red'),
  ];
  for (const { value, reason, ruleId } of answers) console.log(value, reason, ruleId ?? '');
  await client.close();
  return answers;
}
