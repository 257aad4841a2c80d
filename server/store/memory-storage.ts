/** Storage that keeps nothing: for tests and `--memory`. Every entry is "durable" at once. */
import { StorageClosedError } from './errors.js';
import type { LoadedState, Memory, Storage } from './storage.js';

export function createMemoryStorage<Op>(): Storage<Op> {
  let memory: Memory<Op> | undefined;
  let closed = false;
  return {
    description: 'in memory (nothing is kept)',
    load: async (): Promise<LoadedState<Op>> => ({ snapshots: [], entries: [] }),
    attach(attached) {
      memory = attached;
    },
    async commit(_scope, plan) {
      if (closed) throw new StorageClosedError();
      const ops = plan();
      if (ops.length > 0) memory!.apply(ops)();
    },
    readSettled: async (_scope, read) => read(),
    lease: async () => 0,
    unlease: async () => {},
    close: async () => {
      closed = true;
    },
  };
}
