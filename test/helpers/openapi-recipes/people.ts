/**
 * How the OpenAPI walk calls the admin API's people (`docs/protocol.md` §10.6): accounts,
 * invitations, one's own password and sessions, personal tokens; and the throttled sign-in of
 * `POST /session`. A password costs a scrypt on the server (about a second), so one member is
 * made (invited, accepted) and shared by the recipes that need a person.
 */
import { MAX_TOKENS_PER_USER } from '../../../server/state/people/people-service.js';
import type { Recipe } from '../openapi-walk.js';
import {
  cookieOf,
  type Member,
  PASSWORD,
  type PeopleDriver,
  peopleDriver,
  sender,
  uniqueEmail,
} from '../people.js';
import { ADMIN_ENV, type AdminWalkServer } from './admin.js';

type Params = Record<string, string>;

const NO_USER = { id: 'usr_0000000000000000' };

/** Fails sign-ins for one account until the throttle answers `429` (the sixth, unless the machine stalls past the lock). */
async function signInsUntilThrottled(origin: string): Promise<Response[]> {
  const anonymous = sender(origin, { origin });
  const email = uniqueEmail('walk-throttled');
  const answers: Response[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const answer = await anonymous('POST', '/session', { email, password: 'not-the-password' });
    answers.push(answer);
    if (answer.status === 429) break;
  }
  return answers;
}

/** The operations of a document, as the walk reads them: which answers each documents. */
type Documented = { paths: Record<string, Record<string, unknown>> };

/**
 * `recipes` (`./admin.ts`'s, the scoped ones) with the people operations' added, the throttled
 * sign-in added to `post /session`, and every read `doc` says may be `403` (one needing more
 * than a viewer's role) made once more by someone whose role falls short.
 */
export function withPeople(
  server: AdminWalkServer,
  recipes: Record<string, Recipe>,
  doc: Documented,
): Record<string, Recipe> {
  const { origin, token } = server;
  const people = peopleDriver(origin, token);
  let shared: Promise<Member> | undefined;
  /**
   * The one member the recipes share: an editor, a viewer in `ADMIN_ENV`'s project (so short of
   * an admin everywhere, and of an editor there).
   */
  const member = () => {
    shared ??= people.join({
      email: uniqueEmail('walk-member'),
      role: 'editor',
      projects: { [ADMIN_ENV.project]: 'viewer' },
    });
    return shared;
  };
  const own = { ...recipes, ...peopleRecipes(server, people, member, recipes) };
  return Object.fromEntries(
    Object.entries(own).map(([name, recipe]) => {
      const [method, path] = name.split(' ') as [string, string];
      const op = doc.paths[path]?.[method] as { responses?: Record<string, unknown> } | undefined;
      if (method !== 'get' || !op?.responses?.['403']) return [name, recipe];
      const shortOfIt: Recipe = {
        ...recipe,
        more: async (w, params) => {
          const at = path.replace(/\{([^}]+)\}/g, (_, p: string) => encodeURIComponent(params[p] ?? ''));
          const target = recipe.query ? `${at}?${recipe.query}` : at;
          return [...((await recipe.more?.(w, params)) ?? []), await (await member()).page('GET', target)];
        },
      };
      return [name, shortOfIt];
    }),
  );
}

/** The people operations' recipes, and `own`'s `post /session` with the throttled sign-in added. */
function peopleRecipes(
  server: AdminWalkServer,
  people: PeopleDriver,
  member: () => Promise<Member>,
  own: Record<string, Recipe>,
): Record<string, Recipe> {
  const { origin } = people;
  /** An account invited, not yet accepted. */
  const invitee = async (): Promise<Params> => ({
    id: (await people.invite({ email: uniqueEmail('walk-invitee'), role: 'viewer' })).user.id,
  });
  const signIn = own['post /session'] ?? {};
  const newUser = { email: uniqueEmail('walk-created'), role: 'viewer' };
  return {
    'post /session': {
      ...signIn,
      more: async (w, params) => [
        ...((await signIn.more?.(w, params)) ?? []),
        ...(await signInsUntilThrottled(origin)),
      ],
    },
    'post /invitations/accept': {
      prepare: async () => ({
        token: (await people.invite({ email: uniqueEmail('walk-accepting'), role: 'viewer' })).token,
      }),
      body: ({ token: link }: Params) => ({ token: link, password: PASSWORD, name: 'Walker' }),
      invalidBody: { token: 'x', password: PASSWORD, role: 'admin' },
      more: async (_, { token: used }) => {
        const fresh = await people.invite({ email: uniqueEmail('walk-short'), role: 'viewer' });
        return [
          // Used already by the valid request.
          await people.accept(used!, PASSWORD),
          await people.accept(fresh.token, 'too short'),
          // Not from the server's own `Origin`.
          await sender(origin, { origin: 'http://elsewhere.example' })('POST', '/invitations/accept', {
            token: fresh.token,
            password: PASSWORD,
          }),
        ];
      },
    },
    // Single sign-on's offer: no credential asked, one answer.
    'get /sso': {},
    'get /users': {},
    'post /users': {
      body: newUser,
      invalidBody: { email: 'not an address', role: 'owner' },
      more: async (w) => [await w.call('POST', '/users', newUser)],
    },
    'get /users/{id}': { prepare: invitee, missing: NO_USER },
    'patch /users/{id}': {
      prepare: invitee,
      body: { role: 'editor', projects: { acme: 'viewer' }, name: 'Renamed' },
      invalidBody: { role: 'owner' },
      missing: NO_USER,
    },
    'delete /users/{id}': { prepare: invitee, missing: NO_USER },
    'post /users/{id}/invitation': {
      prepare: invitee,
      missing: NO_USER,
      // Someone who accepted theirs is past invitations.
      more: async (w) => [await w.call('POST', `/users/${(await member()).user.id}/invitation`)],
    },
    'post /me/password': {
      // The admin token has no password (`400`); the member changes theirs.
      body: { current: PASSWORD, password: `${PASSWORD}-2` },
      invalidBody: { password: 'short' },
      more: async () => {
        const someone = await member();
        const next = `${someone.password}-next`;
        const changed = await someone.page('POST', '/me/password', {
          current: someone.password,
          password: next,
        });
        someone.password = next;
        return [changed];
      },
    },
    'get /me/sessions': {},
    'delete /me/sessions/{id}': {
      // A session the admin token signed in, as the bearer's own.
      prepare: async () => {
        const signedIn = await sender(origin, { origin })('POST', '/session', { token: server.token });
        const cookie = cookieOf(signedIn);
        const sessions = (await (await sender(origin, { cookie })('GET', '/me/sessions')).json()) as Array<{
          id: string;
          current: boolean;
        }>;
        return { id: sessions.find((s) => s.current)!.id };
      },
      missing: { id: 'u-none' },
    },
    'get /tokens': {},
    'post /tokens': {
      // The admin token owns no tokens (`400`); the member's are made by its cookie.
      body: { name: 'walked' },
      invalidBody: { name: '' },
      more: async () => {
        const someone = await member();
        const created = await someone.page('POST', '/tokens', { name: 'walked', expiresAt: null });
        // As many as one holds, then one more.
        const made: string[] = [];
        let refused: Response | undefined;
        for (let i = 0; i <= MAX_TOKENS_PER_USER && !refused; i++) {
          const answer = await someone.page('POST', '/tokens', { name: `filler ${i}` });
          if (answer.status === 201) made.push(((await answer.json()) as { id: string }).id);
          else refused = answer;
        }
        for (const id of made) await (await someone.page('DELETE', `/tokens/${id}`)).body?.cancel();
        return refused ? [created, refused] : [created];
      },
    },
    'delete /tokens/{id}': {
      prepare: async () => ({ id: (await people.token(await member(), 'to revoke')).id }),
      missing: { id: 'pat_0000000000000000' },
    },
  };
}
