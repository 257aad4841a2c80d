/** Waiting for a condition that an event will make true, without sleeps as synchronization. */
import type { FlagChange, FlagwireClient } from '../../src/index.js';

/** Resolves once `predicate()` holds, re-checking after every change the client applies. */
export function whenTrue(client: FlagwireClient, predicate: () => boolean): Promise<void> {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve) => {
    const off = client.on('change', () => {
      if (predicate()) {
        off();
        resolve();
      }
    });
  });
}

/** The next change of `key` the client applies. */
export function nextChange(client: FlagwireClient, key: string): Promise<FlagChange> {
  return new Promise((resolve) => {
    const off = client.on(`change:${key}`, (change) => {
      off();
      resolve(change);
    });
  });
}

/** Resolves when the client's status reaches `state`. */
export function whenState(client: FlagwireClient, state: string): Promise<void> {
  if (client.status().state === state) return Promise.resolve();
  return new Promise((resolve) => {
    const off = client.on('status', (status) => {
      if (status.state === state) {
        off();
        resolve();
      }
    });
  });
}
