/**
 * Delivery slots (`docs/protocol.md` §8, "Sending"): at most `concurrency` attempts at once, and
 * `perWebhook` to one webhook; free slots go to the waiting webhooks in turn, so a receiver that
 * hangs cannot hold up the others.
 */
export class Slots {
  readonly #concurrency: number;
  readonly #perWebhook: number;
  /** Attempts waiting for a slot, per webhook; woken with `true` when a slot was taken for them. */
  readonly #waiting = new Map<string, Array<(granted: boolean) => void>>();
  /** Attempts under way, per webhook. */
  readonly #activeByHook = new Map<string, number>();
  #active = 0;

  constructor(concurrency: number, perWebhook: number) {
    this.#concurrency = concurrency;
    this.#perWebhook = perWebhook;
  }

  /** Takes a slot for an attempt to `hookId`, waiting for one: `false` when closed meanwhile. */
  take(hookId: string): Promise<boolean> {
    if (this.#hasRoom(hookId)) {
      this.#take(hookId);
      return Promise.resolve(true);
    }
    return new Promise<boolean>((wake) => {
      const queue = this.#waiting.get(hookId);
      if (queue) queue.push(wake);
      else this.#waiting.set(hookId, [wake]);
    });
  }

  /** Gives a slot back, to the next waiting webhook in turn. */
  give(hookId: string): void {
    this.#active -= 1;
    this.#activeByHook.set(hookId, (this.#activeByHook.get(hookId) ?? 1) - 1);
    this.#wake();
  }

  /** Wakes every waiting attempt with `false`. */
  close(): void {
    for (const queue of this.#waiting.values()) for (const wake of queue) wake(false);
    this.#waiting.clear();
  }

  #hasRoom(hookId: string): boolean {
    return this.#active < this.#concurrency && (this.#activeByHook.get(hookId) ?? 0) < this.#perWebhook;
  }

  #take(hookId: string): void {
    this.#active += 1;
    this.#activeByHook.set(hookId, (this.#activeByHook.get(hookId) ?? 0) + 1);
  }

  #wake(): void {
    let progress = true;
    while (progress && this.#active < this.#concurrency) {
      progress = false;
      for (const [hookId, queue] of [...this.#waiting]) {
        if (!this.#hasRoom(hookId)) continue;
        const wake = queue.shift()!;
        // Re-inserted at the end, so the next free slot goes to another webhook first.
        this.#waiting.delete(hookId);
        if (queue.length > 0) this.#waiting.set(hookId, queue);
        this.#take(hookId);
        wake(true);
        progress = true;
      }
    }
  }
}
