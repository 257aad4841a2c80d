/**
 * The operations the store records. Every op carries absolute values, so applying a
 * suffix of the log again onto a state that already holds it changes nothing
 * (`docs/protocol.md` §7, storage).
 */
import type { ApiKeyGrant, Environment, StoredDelivery, StoredFlag, StoredWebhook } from './model.js';

export type Op =
  | { t: 'env'; id: string; project: string; environment: string; epoch: string; keys: ApiKeyGrant[] }
  | { t: 'flag'; env: string; rev: number; flag: StoredFlag }
  | { t: 'flag-del'; env: string; rev: number; key: string }
  | { t: 'webhook'; env: string; webhook: StoredWebhook }
  | { t: 'webhook-del'; env: string; id: string }
  | { t: 'delivery'; env: string; delivery: StoredDelivery }
  | { t: 'delivery-del'; env: string; id: string };

/** JSON form of the whole state, written by compaction. */
export interface SnapshotData {
  envs: Array<{
    id: string;
    project: string;
    environment: string;
    epoch: string;
    revision: number;
    keys: ApiKeyGrant[];
    flags: StoredFlag[];
    webhooks: StoredWebhook[];
    deliveries?: StoredDelivery[];
  }>;
}

/** All environments, by id. */
export type Database = Map<string, Environment>;

function envOf(db: Database, id: string): Environment {
  const env = db.get(id);
  if (!env) throw new Error(`store: op for unknown environment ${JSON.stringify(id)}`);
  return env;
}

/** Applies one op to the in-memory state; used both live and when replaying the log. */
export function applyOp(db: Database, op: Op): void {
  switch (op.t) {
    case 'env': {
      const env = db.get(op.id);
      if (env) env.generatedKeys = op.keys;
      else
        db.set(op.id, {
          id: op.id,
          project: op.project,
          environment: op.environment,
          epoch: op.epoch,
          revision: 0,
          flags: new Map(),
          webhooks: new Map(),
          deliveries: new Map(),
          generatedKeys: op.keys,
        });
      return;
    }
    case 'flag': {
      const env = envOf(db, op.env);
      env.flags.set(op.flag.key, op.flag);
      if (op.rev > env.revision) env.revision = op.rev;
      return;
    }
    case 'flag-del': {
      const env = envOf(db, op.env);
      env.flags.delete(op.key);
      if (op.rev > env.revision) env.revision = op.rev;
      return;
    }
    case 'webhook':
      envOf(db, op.env).webhooks.set(op.webhook.id, op.webhook);
      return;
    case 'webhook-del': {
      const env = envOf(db, op.env);
      env.webhooks.delete(op.id);
      for (const [id, delivery] of env.deliveries)
        if (delivery.webhookId === op.id) env.deliveries.delete(id);
      return;
    }
    case 'delivery':
      envOf(db, op.env).deliveries.set(op.delivery.id, op.delivery);
      return;
    case 'delivery-del':
      envOf(db, op.env).deliveries.delete(op.id);
      return;
  }
}

export function toSnapshot(db: Database): SnapshotData {
  return {
    envs: [...db.values()].map((env) => ({
      id: env.id,
      project: env.project,
      environment: env.environment,
      epoch: env.epoch,
      revision: env.revision,
      keys: env.generatedKeys,
      flags: [...env.flags.values()],
      webhooks: [...env.webhooks.values()],
      deliveries: [...env.deliveries.values()],
    })),
  };
}

export function fromSnapshot(data: SnapshotData): Database {
  const db: Database = new Map();
  for (const e of data.envs) {
    db.set(e.id, {
      id: e.id,
      project: e.project,
      environment: e.environment,
      epoch: e.epoch,
      revision: e.revision,
      flags: new Map(e.flags.map((f) => [f.key, f])),
      webhooks: new Map(e.webhooks.map((w) => [w.id, w])),
      deliveries: new Map((e.deliveries ?? []).map((d) => [d.id, d])),
      generatedKeys: e.keys,
    });
  }
  return db;
}
