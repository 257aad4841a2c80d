/**
 * Renaming and deleting projects and environments (`docs/protocol.md` §10.3).
 *
 * - A rename changes an environment's keys, never its identity (`../kernel/env-names.ts`): API keys, open
 *   SDK and OFREP streams, webhooks and history carry on; only addresses that name it (the admin
 *   API's paths, the dashboard's links) change, and webhook events carry the new keys. The new
 *   key must be free (409). Renames are decided under the shared scope's lock, so of two renames
 *   to one name one wins; a project's rename, with all its environments, is one entry.
 * - A deletion revokes the environment's keys (which closes every SDK and OFREP stream they
 *   opened), stops its webhooks (pending deliveries are dropped with it) and removes its flags,
 *   segments and history; nothing can be written to it afterwards.
 * - What the config file names, and the default environment of a server started without one,
 *   are the server's set-up, not the dashboard's: 409 `CONFIG_MANAGED`.
 * - How many approvals an environment's changes need (`approvals`) is stored, not set-up: any
 *   served environment takes it, the config's too, unless the config file sets it itself.
 */
import { ApiError } from '../../errors.js';
import { ADMIN_TOKEN_ACTOR } from '../kernel/actors.js';
import { findByName } from '../kernel/env-names.js';
import type { Ledger } from '../kernel/ledger.js';
import type { Actor, Environment, MemoryState, StoredProject } from '../kernel/model.js';
import type { KernelOp } from '../kernel/ops.js';
import type { AdminService, ProjectView } from './admin-service.js';
import { type AdminOp, approvalsOps } from './ops.js';

const quoted = JSON.stringify;

/** Who made a change and now (`by`, `at`): what its ops carry for their audit records. */
const stamp = (actor: Actor) => ({ by: actor, at: new Date().toISOString() });

/** 409 `CONFIG_MANAGED`: what the server's set-up names cannot be renamed or deleted here. */
function managed(what: string, source: Environment['source']): ApiError {
  return new ApiError(
    409,
    'CONFIG_MANAGED',
    source === 'config'
      ? `${what} is named by the config file: rename or remove it there`
      : `${what} is the server's default set-up (it starts without a config file): it cannot be renamed or deleted`,
  );
}

/** What a `PATCH` of an environment changes: its key (a rename), its approvals, or both. */
export interface EnvironmentChange {
  key?: string | undefined;
  approvals?: number | undefined;
}

export class LifecycleService {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<KernelOp | AdminOp>;
  readonly #admin: AdminService;
  /** Whether the config file sets the environment's approvals (then they are changed there). */
  readonly #configApprovals: (env: Environment) => boolean;

  constructor(
    db: MemoryState,
    ledger: Ledger<KernelOp | AdminOp>,
    admin: AdminService,
    configApprovals: (env: Environment) => boolean = () => false,
  ) {
    this.#db = db;
    this.#ledger = ledger;
    this.#admin = admin;
    this.#configApprovals = configApprovals;
  }

  /**
   * Changes environment `project/key`: renames it (`change.key`), sets its approvals
   * (`change.approvals`), or both. Every refusal comes before anything is written, but a rename
   * lost to a racing one (409): then nothing is written either, as the rename goes first.
   */
  async updateEnvironment(
    project: string,
    key: string,
    change: EnvironmentChange,
    actor: Actor = ADMIN_TOKEN_ACTOR,
  ): Promise<Environment> {
    let env = this.#admin.environment(project, key);
    if (change.key !== undefined) this.#changeable(project, key);
    if (change.approvals !== undefined) this.#approvable(env);
    if (change.key !== undefined) env = await this.renameEnvironment(project, key, change.key, actor);
    if (change.approvals !== undefined) await this.setApprovals(env, change.approvals, actor);
    return env;
  }

  /** Sets how many approvals a change of `env`'s flags and segments needs (0: none). */
  async setApprovals(env: Environment, approvals: number, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<void> {
    this.#approvable(env);
    await this.#ledger.commit(env.id, () => {
      this.#stillThere(env);
      return approvalsOps(env, approvals, actor);
    });
  }

  /** 409 `CONFIG_MANAGED` when the config file sets `env`'s approvals. */
  #approvable(env: Environment): void {
    if (this.#configApprovals(env))
      throw new ApiError(
        409,
        'CONFIG_MANAGED',
        `the approvals of environment ${quoted(`${env.project}/${env.environment}`)} are set by the config file: change them there`,
      );
  }

  /** Renames environment `project/key` to `project/to`; answers it. */
  async renameEnvironment(
    project: string,
    key: string,
    to: string,
    actor: Actor = ADMIN_TOKEN_ACTOR,
  ): Promise<Environment> {
    const env = this.#changeable(project, key);
    if (to === key) return env;
    await this.#ledger.commit('', () => {
      this.#stillThere(env);
      this.#refuseTaken(project, to);
      const { id, epoch } = env;
      return [{ t: 'env-name', id, epoch, project, environment: to, ...stamp(actor) }];
    });
    return env;
  }

  /** Deletes environment `project/key`, revoking its keys (`ServedEnvironments`). */
  async deleteEnvironment(project: string, key: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<void> {
    const env = this.#changeable(project, key);
    await this.#delete(env, actor);
  }

  /** Renames project `key` and every environment in it to `to`; answers the project. */
  async renameProject(key: string, to: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<ProjectView> {
    const project = this.#changeableProject(key);
    if (to === key) return project;
    await this.#ledger.commit('', () => {
      if (
        this.#admin.projects().some((p) => p.key === to) ||
        [...this.#db.values()].some((e) => e.project === to)
      )
        throw new ApiError(409, 'CONFLICT', `project ${quoted(to)} already exists`);
      const record: StoredProject = this.#db.projects.get(key) ?? { key, createdAt: project.createdAt };
      const by = stamp(actor);
      const ops: Array<KernelOp | AdminOp> = [
        { t: 'project-del', key, ...by },
        { t: 'project', project: { ...record, key: to }, ...by },
      ];
      // Kept environments the set-up no longer names go along: they are the project's too.
      for (const env of this.#db.values())
        if (env.project === key)
          ops.push({
            t: 'env-name',
            id: env.id,
            epoch: env.epoch,
            project: to,
            environment: env.environment,
            ...by,
          });
      return ops;
    });
    return this.#admin.projects().find((p) => p.key === to)!;
  }

  /**
   * Deletes project `key`: each of its environments (one entry each, as a deletion is its
   * environment's last), those the store keeps unserved too (so none comes back with the name),
   * then the project. Should the storage fail part-way, deleting it again finishes the job.
   */
  async deleteProject(key: string, actor: Actor = ADMIN_TOKEN_ACTOR): Promise<void> {
    this.#changeableProject(key);
    for (const env of [...this.#db.values()].filter((e) => e.project === key)) await this.#delete(env, actor);
    await this.#ledger.commit('', () =>
      this.#db.projects.has(key) ? [{ t: 'project-del', key, ...stamp(actor) }] : [],
    );
  }

  async #delete(env: Environment, actor: Actor): Promise<void> {
    await this.#ledger.commit(env.id, () =>
      this.#db.get(env.id) === env ? [{ t: 'env-del', env: env.id, ...stamp(actor) }] : [],
    );
  }

  /** The served environment `project/key` if the dashboard may rename or delete it. */
  #changeable(project: string, key: string): Environment {
    const env = this.#admin.environment(project, key);
    if (env.source !== 'dashboard') throw managed(`environment ${quoted(`${project}/${key}`)}`, env.source);
    return env;
  }

  #changeableProject(key: string): ProjectView {
    const project = this.#admin.projects().find((p) => p.key === key);
    if (!project) throw new ApiError(404, 'NOT_FOUND', `project ${quoted(key)} not found`);
    if (project.source !== 'dashboard') throw managed(`project ${quoted(key)}`, project.source);
    return project;
  }

  /** 404 when `env` was deleted meanwhile (through another instance). */
  #stillThere(env: Environment): void {
    if (this.#db.get(env.id) !== env)
      throw new ApiError(
        404,
        'NOT_FOUND',
        `environment ${quoted(`${env.project}/${env.environment}`)} not found`,
      );
  }

  /** 409 when an environment of the store is called `project/key` already. */
  #refuseTaken(project: string, key: string): void {
    const holder = findByName(this.#db.values(), project, key);
    if (!holder) return;
    const name = quoted(`${project}/${key}`);
    throw new ApiError(
      409,
      'CONFLICT',
      this.#admin.environments.includes(holder)
        ? `environment ${name} already exists`
        : `environment ${name} is kept in the store (the config file no longer names it): create it to take it back, or choose another key`,
    );
  }
}
