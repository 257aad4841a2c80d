/**
 * Who may do what (`docs/protocol.md` §10.6), the one place the page decides it: the role inside a
 * project is the person's role there (`projects[KEY]`), else their global role; the admin token is
 * an admin. The server decides for real (`403` naming the role needed); the page only disables
 * what would be refused and says why, in the server's words ("Needs the editor role").
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role, SessionAnswer } from './types.js';

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

/** Who is signed in: provided by the app around every signed-in screen. */
export const SessionContext = createContext<SessionAnswer | undefined>(undefined);

/** The role inside `project` (the global role when none is given): the admin token is an admin. */
export function roleIn(session: SessionAnswer | undefined, project?: string): Role {
  if (!session) return 'viewer';
  if (session.user === null) return 'admin';
  return (project !== undefined ? session.user.projects[project] : undefined) ?? session.user.role;
}

/** Whether the role inside `project` includes `needed`. */
export const can = (session: SessionAnswer | undefined, project: string | undefined, needed: Role): boolean =>
  RANK[roleIn(session, project)] >= RANK[needed];

export interface Allowed {
  ok: boolean;
  /** Why not, for a control's `title` and a screen's note: "Needs the editor role (you are a viewer)". */
  reason: string | undefined;
}

const article = (role: Role) => (role === 'admin' ? 'an' : 'a');

/** Whether the person signed in may do what needs `needed` inside `project` (globally: none). */
export function useCan(project: string | undefined, needed: Role): Allowed {
  const session = useContext(SessionContext);
  const ok = can(session, project, needed);
  const has = roleIn(session, project);
  const where = project === undefined ? '' : ` in project ${project}`;
  return {
    ok,
    reason: ok ? undefined : `Needs the ${needed} role (you are ${article(has)} ${has}${where})`,
  };
}

export const useSession = (): SessionAnswer | undefined => useContext(SessionContext);
