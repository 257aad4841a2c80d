/**
 * A small typed event emitter: listeners run in order, a throwing listener is reported and
 * never stops the others, and `on` returns its own `off` (also wired to an `AbortSignal`).
 * No Node `EventEmitter` semantics: an `error` event without listeners throws nothing.
 */
export class Emitter {
  readonly #listeners = new Map<string, Set<(...args: never[]) => void>>();
  readonly #onListenerError: (event: string, error: unknown) => void;

  constructor(onListenerError: (event: string, error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  on(event: string, listener: (...args: never[]) => void, signal?: AbortSignal): () => void {
    if (signal?.aborted) return () => {};
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    // Wrap, so the same function subscribed twice is two subscriptions with two offs.
    const entry = (...args: never[]) => listener(...args);
    set.add(entry);
    const off = () => {
      set.delete(entry);
      signal?.removeEventListener('abort', off);
    };
    signal?.addEventListener('abort', off, { once: true });
    return off;
  }

  has(event: string): boolean {
    return (this.#listeners.get(event)?.size ?? 0) > 0;
  }

  emit(event: string, ...args: unknown[]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch (error) {
        this.#onListenerError(event, error);
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
