/**
 * "Copy flags to another environment" (`docs/protocol.md` §10.3): a preview that writes
 * nothing, and the copy itself, decided by `planCopy` under the target's lock and committed as
 * one entry of it through the one write path (so the target's SDK streams, webhooks and history
 * see each flag change, marked `copiedFrom`). The source's history then records the copy
 * (`copiedTo`), without a revision: nothing changed there. The copy is refused with 409
 * `REVISION_CHANGED` when the target (or, when given, the source) moved since the preview, and
 * with 409 `CONFLICT` while a flag of it is in conflict.
 */
import type { PatternCheck } from '../../../src/core/targeting/validate.js';
import { ApiError } from '../../errors.js';
import { ADMIN_TOKEN_ACTOR } from '../kernel/actors.js';
import { nameOf } from '../kernel/env-names.js';
import type { Ledger } from '../kernel/ledger.js';
import type { Actor, Environment, MemoryState } from '../kernel/model.js';
import { type CopyPlanOp, type CopyPreview, planCopy } from './copy-plan.js';
import type { CopyOp } from './ops.js';

export interface CopyRequest {
  source: Environment;
  target: Environment;
  /** The flags to copy; every flag of the source when absent. */
  flags: readonly string[] | undefined;
}

export interface ApplyCopyRequest extends CopyRequest {
  /** The target's revision the preview showed. */
  expectedRevision: number;
  /** The source's revision the preview showed, to refuse a copy of flags changed since. */
  expectedSourceRevision: number | undefined;
}

export class CopyService {
  readonly #db: MemoryState;
  readonly #ledger: Ledger<CopyPlanOp | CopyOp>;
  readonly #patterns: PatternCheck | undefined;

  constructor(db: MemoryState, ledger: Ledger<CopyPlanOp | CopyOp>, patterns?: PatternCheck) {
    this.#db = db;
    this.#ledger = ledger;
    this.#patterns = patterns;
  }

  /** What copying would do, as of now; writes nothing. */
  async preview(request: CopyRequest): Promise<CopyPreview> {
    await this.#ledger.readSettled(request.source.id, () => undefined);
    return this.#ledger.readSettled(request.target.id, () => this.#plan(request, ADMIN_TOKEN_ACTOR).preview);
  }

  /** Copies; answers what it did, `to.revision` being the target's revision after it. */
  async apply(request: ApplyCopyRequest, actor: Actor): Promise<CopyPreview> {
    const { source, target } = request;
    await this.#ledger.readSettled(source.id, () => undefined);
    let done: CopyPreview | undefined;
    await this.#ledger.commit(target.id, () => {
      moved(target, request.expectedRevision);
      if (request.expectedSourceRevision !== undefined) moved(source, request.expectedSourceRevision);
      const { preview, ops } = this.#plan(request, actor);
      const conflicts = preview.flags.filter((f) => f.status === 'conflict');
      if (conflicts.length > 0)
        throw new ApiError(
          409,
          'CONFLICT',
          `cannot copy ${conflicts.map((f) => `${JSON.stringify(f.key)} (${f.reason})`).join('; ')}: leave them out`,
        );
      done = preview;
      return ops;
    });
    const preview = done!;
    const written = preview.flags.filter((f) => f.status === 'created' || f.status === 'changed');
    if (written.length > 0) {
      const at = new Date().toISOString();
      const rev = preview.from.revision;
      await this.#ledger.commit(source.id, () =>
        this.#db.get(source.id) === source
          ? [
              {
                t: 'copied',
                env: source.id,
                rev,
                to: nameOf(target),
                flags: written.map((f) => f.key),
                at,
                by: actor,
              },
            ]
          : [],
      );
    }
    return { ...preview, to: { ...preview.to, revision: target.revision } };
  }

  #plan(request: CopyRequest, actor: Actor) {
    const { source, target } = request;
    const keys = request.flags ?? [...source.flags.keys()].sort();
    for (const key of keys)
      if (!source.flags.has(key))
        throw new ApiError(
          404,
          'NOT_FOUND',
          `flag ${JSON.stringify(key)} not found in ${JSON.stringify(nameOf(source))}`,
        );
    return planCopy({
      source,
      target,
      keys,
      patterns: this.#patterns,
      actor,
      now: new Date().toISOString(),
    });
  }
}

/** 409 `REVISION_CHANGED` when `env` is no longer at the revision the preview showed. */
function moved(env: Environment, expected: number): void {
  if (env.revision !== expected)
    throw new ApiError(
      409,
      'REVISION_CHANGED',
      `${JSON.stringify(nameOf(env))} is at revision ${env.revision}, not ${expected} as previewed: preview the copy again`,
    );
}
