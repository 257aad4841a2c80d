/**
 * The management client with a personal access token (`docs/protocol.md` §10.6): pointed at an
 * environment of the admin API, it acts as the token's user, with their role there, and every
 * change is credited to the token and its user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient, isFlagwireError } from '../../../src/index.js';
import { peopleDriver, uniqueEmail } from '../../helpers/people.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('the management client with a personal access token', () => {
  it('manages flags as its user, credited to the token, and is refused where the role is not enough', async () => {
    const people = peopleDriver(t.server.url, t.server.adminToken!);
    const member = await people.join({
      email: uniqueEmail('script'),
      role: 'viewer',
      projects: { acme: 'editor' },
    });
    const { token } = await people.token(member, 'deploy script');
    const at = (project: string, env: string) =>
      createManagementClient({
        baseUrl: `${t.server.url}/admin/api/environments/${project}/${env}`,
        apiKey: token,
      });

    const client = at('acme', 'production');
    const created = await client.flags.create({ key: 'from-a-script', type: 'boolean' });
    expect(created.key).toBe('from-a-script');
    await client.flags.update('from-a-script', { enabled: true });
    expect((await client.flags.get('from-a-script')).enabled).toBe(true);

    const history = (await (
      await fetch(`${t.server.url}/admin/api/environments/acme/production/history`, {
        headers: { authorization: `Bearer ${t.server.adminToken}` },
      })
    ).json()) as Array<{ flag: string; actor: unknown }>;
    const mine = history.filter((entry) => entry.flag === 'from-a-script');
    expect(mine).toHaveLength(2);
    for (const entry of mine)
      expect(entry.actor).toEqual({
        type: 'token',
        id: expect.stringMatching(/^pat_/),
        name: 'deploy script',
        user: { id: member.user.id, name: member.user.name },
      });

    // A viewer outside acme: the server refuses, naming the role.
    const elsewhere = createManagementClient({
      baseUrl: `${t.server.url}/admin/api/environments/other/production`,
      apiKey: token,
    });
    const refused = await elsewhere.flags
      .create({ key: 'nope', type: 'boolean' })
      .catch((error: unknown) => error);
    expect(isFlagwireError(refused) && refused.code).toBe('FORBIDDEN');
    expect((refused as Error).message).toContain('needs the editor role');
  });
});
