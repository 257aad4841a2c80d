/**
 * How environments are named (`docs/protocol.md` §10.3). An environment's `id` is internal and
 * never changes: it is the storage scope of its entries, the key of its streams and of the
 * OFREP stream tokens, and API keys are bound to the environment, not to a name. Its keys
 * (`project`, `environment`) are what people and URLs use, and a rename changes only them.
 *
 * Renames are entries of the shared scope `''` (one lock for every name, so of two renames to
 * one name, one wins; a project's rename is one entry). An entry names an environment of one
 * id *and epoch*, so a later environment that reuses the id (after a deletion) is not renamed
 * by it. An environment without such an entry keeps the keys it was created with.
 */
import type { Environment, EnvName, MemoryState } from './model.js';

/** `PROJECT/ENVIRONMENT`: how an environment is named on the wire (events, copy, history). */
export const nameOf = (env: Pick<Environment, 'project' | 'environment'>): string =>
  `${env.project}/${env.environment}`;

/** Whether `env` is called `project/environment` now. */
export const isNamed = (env: Environment, project: string, environment: string): boolean =>
  env.project === project && env.environment === environment;

/** The environment called `project/environment` in `envs`, if any. */
export function findByName(
  envs: Iterable<Environment>,
  project: string,
  environment: string,
): Environment | undefined {
  for (const env of envs) if (isNamed(env, project, environment)) return env;
  return undefined;
}

/**
 * The id for an environment called `project/environment`: `project/environment` itself, unless
 * an environment renamed away holds it; then `project/environment#2`, `#3`... (`#` is never part
 * of a key). An id whose environment has this very name is answered too: the caller decides
 * whether it is taken or taken back. Deterministic, so instances creating the same environment
 * at once pick the same id, and its scope's lock makes one of them win.
 */
export function idFor(db: MemoryState, project: string, environment: string): string {
  for (let n = 1; ; n++) {
    const id = n === 1 ? `${project}/${environment}` : `${project}/${environment}#${n}`;
    // An environment not restored at start-up keeps its id (`damaged.ts`).
    if (db.damaged.has(id)) continue;
    const stored = db.get(id);
    if (!stored || isNamed(stored, project, environment)) return id;
  }
}

/** The name the directory gives `env`, if a rename of this environment (id and epoch) is recorded. */
export function renamedAs(db: MemoryState, env: Pick<Environment, 'id' | 'epoch'>): EnvName | undefined {
  const name = db.names.get(env.id);
  return name?.epoch === env.epoch ? name : undefined;
}

/** Gives `env` the keys its recorded rename says, if there is one. */
export function applyRecordedName(db: MemoryState, env: Environment): void {
  const name = renamedAs(db, env);
  if (!name) return;
  env.project = name.project;
  env.environment = name.environment;
}

/** The keys an environment was created with, read from its id (`idFor`). */
export function nameFromId(id: string): { project: string; environment: string } {
  const slash = id.indexOf('/');
  return { project: id.slice(0, slash), environment: id.slice(slash + 1).replace(/#\d+$/, '') };
}
