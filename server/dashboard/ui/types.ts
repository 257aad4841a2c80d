/** Shapes of the admin API's answers (`docs/protocol.md` §10.3, §8.3). */
export type { Flag, FlagType, Webhook, WebhookEventKind } from '../../../src/core/types.js';

export type EnvSource = 'config' | 'default' | 'dashboard';

export interface EnvView {
  project: string;
  key: string;
  source: EnvSource;
  createdAt: string | null;
  streams: number;
  flags: number;
  revision: number;
}

export interface ProjectView {
  key: string;
  source: EnvSource;
  createdAt: string | null;
  environments: EnvView[];
}

export interface Overview {
  projects: ProjectView[];
}

export interface ApiKeyView {
  id: string;
  name: string | null;
  access: 'full' | 'read-only';
  hint: string;
  source: 'config' | 'generated' | 'dashboard';
  createdAt: string | null;
  revocable: boolean;
}

export type Actor =
  | { type: 'api-key'; hint: string; name?: string }
  | { type: 'dashboard' }
  | { type: 'config' };

export interface HistoryEntry {
  revision: number;
  at: string;
  flag: string;
  action: 'created' | 'updated' | 'deleted';
  changes: Array<{ field: string; from: unknown; to: unknown }>;
  actor: Actor;
}

export interface Delivery {
  id: string;
  eventId: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}
