/** Storage that keeps nothing: for tests and `--memory`. Every append is "durable" at once. */
import type { Op } from '../state/ops.js';
import type { LoadedState, Storage } from './storage.js';

export function createMemoryStorage(): Storage {
  return {
    load: async (): Promise<LoadedState> => ({ snapshot: null, entries: [] }),
    append(_ops: readonly Op[], onDurable?: () => void): Promise<void> {
      onDurable?.();
      return Promise.resolve();
    },
    barrier: () => Promise.resolve(),
    setSnapshotSource: () => {},
    close: () => Promise.resolve(),
  };
}
