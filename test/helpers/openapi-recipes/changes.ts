/**
 * How the OpenAPI walk calls the admin API's change requests (`docs/protocol.md` §10.7):
 * `/environments/{project}/{env}/change-requests[/{id}]`, its reviews, applying and scheduling.
 * They are walked in an environment of their own that needs one approval (so the other recipes'
 * direct writes are unaffected), holding one flag the changes update. The walk's full credential
 * is the admin token, so it is the author of what the walk proposes; the other person (who
 * approves, or who may not change what the admin token wrote) is one member, an editor, made once
 * (a password costs a scrypt on the server).
 */
import type { Recipe, WalkContext } from '../openapi-walk.js';
import { type Member, peopleDriver, uniqueEmail } from '../people.js';
import type { AdminWalkServer } from './admin.js';

type Params = Record<string, string>;

/** The flag every update changes. */
const FLAG = 'walk-cr-flag';
/** A version no flag is at. */
const STALE_VERSION = 999_999;
/** A time to apply at that the walk never reaches (fixed: the walk stays deterministic). */
const LATER = '2099-01-01T00:00:00.000Z';
const NO_REQUEST = { id: 'cr_0000000000000000' };

let made = 0;

/** A change creating a flag no other change names. */
const creation = () => ({
  kind: 'flag',
  key: `walk-cr-new-${++made}`,
  action: 'create',
  body: { type: 'boolean' },
});
/** A change of `FLAG`, written against its current version (or `baseVersion`). */
const update = (baseVersion?: number) => ({
  kind: 'flag',
  key: FLAG,
  action: 'update',
  body: { enabled: true, description: `walked ${++made}` },
  ...(baseVersion !== undefined && { baseVersion }),
});

async function expectStatus(
  response: Response,
  status: number,
  what: string,
): Promise<Record<string, unknown>> {
  if (response.status !== status)
    throw new Error(`${what}: answered ${response.status}, not ${status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The change requests' recipes, in an environment of their own made on first use. */
export function changeRecipes(server: AdminWalkServer): Record<string, Recipe> {
  const people = peopleDriver(server.origin, server.token);
  let setUp: Promise<{ project: string; env: string; member: Member }> | undefined;
  /** The environment (its flag made before it needed approvals) and the member, made once. */
  const ready = (w: WalkContext) => {
    setUp ??= (async () => {
      const project = `walk-changes-${process.pid}`;
      const env = 'live';
      await expectStatus(await w.call('POST', '/projects', { key: project }), 201, `creating ${project}`);
      await expectStatus(
        await w.call('POST', `/projects/${project}/environments`, { key: env }),
        201,
        `creating ${project}/${env}`,
      );
      await expectStatus(
        await w.call('POST', `/environments/${project}/${env}/flags`, { key: FLAG, type: 'boolean' }),
        201,
        `creating ${FLAG}`,
      );
      await expectStatus(
        await w.call('PATCH', `/environments/${project}/${env}`, { approvals: 1 }),
        200,
        `asking ${project}/${env} for approvals`,
      );
      const member = await people.join({ email: uniqueEmail('walk-reviewer'), role: 'editor' });
      return { project, env, member };
    })();
    return setUp;
  };
  const requests = (project: string, env: string) => `/environments/${project}/${env}/change-requests`;
  /** The environment's parameters. */
  const where = async (w: WalkContext): Promise<Params> => {
    const { project, env } = await ready(w);
    return { project, env };
  };
  /** A request proposed by the admin token (`by` the member when given): its id. */
  const proposed = async (
    w: WalkContext,
    changes: unknown[] = [creation()],
    by?: Member,
  ): Promise<string> => {
    const { project, env } = await ready(w);
    const body = { title: 'Walked', changes };
    const response = by
      ? await by.page('POST', requests(project, env), body)
      : await w.call('POST', requests(project, env), body);
    return String((await expectStatus(response, 201, 'proposing changes')).id);
  };
  /** A request proposed by the member: its parameters. */
  const members = async (w: WalkContext, changes?: unknown[]): Promise<Params> => {
    const { member } = await ready(w);
    return { ...(await where(w)), id: await proposed(w, changes, member) };
  };
  /** A request proposed by the admin token: its parameters. */
  const admins = async (w: WalkContext): Promise<Params> => ({ ...(await where(w)), id: await proposed(w) });
  /** The admin token reviews request `id` (the member's). */
  const review = (w: WalkContext, { project, env, id }: Params, decision: 'approve' | 'reject') =>
    w.call('POST', `${requests(project!, env!)}/${id}/reviews`, { decision });

  return {
    'get /environments/{project}/{env}/change-requests': {
      prepare: async (w) => {
        await proposed(w);
        return where(w);
      },
      readOnly: true,
      query: 'state=open',
      invalidQuery: 'state=pending',
      missing: { env: 'walk-none' },
    },
    'post /environments/{project}/{env}/change-requests': {
      prepare: where,
      body: () => ({ title: 'Walked', description: 'By the walk', changes: [creation()] }),
      invalidBody: { title: '', changes: [] },
      missing: { env: 'walk-none' },
      more: async (w, { project, env }) => [
        // Written against a version the flag is not at.
        await w.call('POST', requests(project!, env!), { title: 'Stale', changes: [update(STALE_VERSION)] }),
      ],
    },
    'get /environments/{project}/{env}/change-requests/{id}': {
      prepare: admins,
      readOnly: true,
      missing: NO_REQUEST,
    },
    'patch /environments/{project}/{env}/change-requests/{id}': {
      prepare: admins,
      body: { title: 'Retitled', description: 'Changed by the walk' },
      invalidBody: { state: 'applied' },
      missing: NO_REQUEST,
      more: async (w, { project, env, id }) => {
        const { member } = await ready(w);
        const at = `${requests(project!, env!)}/${id}`;
        return [
          // Not its author.
          await member.page('PATCH', at, { title: 'Not mine' }),
          // Changes written against a version the flag is not at.
          await w.call('PATCH', at, { changes: [update(STALE_VERSION)] }),
        ];
      },
    },
    'delete /environments/{project}/{env}/change-requests/{id}': {
      prepare: admins,
      missing: NO_REQUEST,
      more: async (w, params) => {
        const { member } = await ready(w);
        const { project, env, id } = params;
        return [
          // Withdrawn by the valid request already.
          await w.call('DELETE', `${requests(project!, env!)}/${id}`),
          // Not its author.
          await member.page('DELETE', `${requests(project!, env!)}/${await proposed(w)}`),
        ];
      },
    },
    'post /environments/{project}/{env}/change-requests/{id}/reviews': {
      // The member's, approved by the admin token.
      prepare: (w) => members(w),
      body: { decision: 'approve', comment: 'Looks right' },
      invalidBody: { decision: 'maybe' },
      missing: NO_REQUEST,
      more: async (w, params) => {
        const { member } = await ready(w);
        const { project, env, id } = params;
        return [
          // Its author.
          await member.page('POST', `${requests(project!, env!)}/${id}/reviews`, { decision: 'approve' }),
          // Rejected, it is closed: no more reviews.
          await review(w, params, 'reject'),
          await review(w, params, 'approve'),
        ];
      },
    },
    'post /environments/{project}/{env}/change-requests/{id}/apply': {
      // The member's, updating the flag, approved; a second one updating it too, approved.
      prepare: async (w) => {
        const first = await members(w, [update()]);
        const second = await members(w, [update()]);
        for (const params of [first, second])
          await expectStatus(await review(w, params, 'approve'), 200, 'approving');
        return { ...first, second: second.id! };
      },
      missing: NO_REQUEST,
      more: async (w, { project, env, second }) => [
        // The valid request moved the flag it was written against.
        await w.call('POST', `${requests(project!, env!)}/${second}/apply`),
        // Not approved.
        await w.call('POST', `${requests(project!, env!)}/${await proposed(w)}/apply`),
      ],
    },
    'post /environments/{project}/{env}/change-requests/{id}/schedule': {
      prepare: admins,
      body: { at: LATER },
      invalidBody: { at: 'tomorrow' },
      missing: NO_REQUEST,
      more: async (w, { project, env }) => {
        const id = await proposed(w);
        const at = `${requests(project!, env!)}/${id}`;
        await expectStatus(await w.call('DELETE', at), 200, 'withdrawing');
        // Withdrawn.
        return [await w.call('POST', `${at}/schedule`, { at: LATER })];
      },
    },
  };
}
