/** Small synchronization helpers of the chaos suite: a gate for writers, deadlines, multisets. */

/** How long after the last fault every client must have caught up (webhooks get more). */
export const CONVERGENCE_DEADLINE_MS = 30_000;

/** Writers park at the gate while the conductor kills and checks the server. */
export class Gate {
  #closed = false;
  #open: Promise<void> = Promise.resolve();
  #release: () => void = () => {};
  #parked = 0;
  #onPark: (() => void) | undefined;

  close(): void {
    this.#closed = true;
    this.#open = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  open(): void {
    this.#closed = false;
    this.#release();
  }

  async pass(): Promise<void> {
    while (this.#closed) {
      this.#parked += 1;
      this.#onPark?.();
      await this.#open;
      this.#parked -= 1;
    }
  }

  /** Resolves once `count()` writers wait at the closed gate (finished writers do not count). */
  parked(count: () => number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#parked >= count()) {
          this.#onPark = undefined;
          resolve();
        }
      };
      this.#onPark = check;
      check();
    });
  }

  /** Re-checks a `parked()` waiter (a writer finished). */
  poke(): void {
    this.#onPark?.();
  }
}

/**
 * Resolves true once `check` says so, false after `ms`. `check(wake)` answers true, or
 * arranges for `wake` to be called when it is worth checking again and returns how to stop
 * that. The timer is a deadline, not a synchronization.
 */
export function until(ms: number, check: (wake: () => void) => true | (() => void)): Promise<boolean> {
  return new Promise((resolve) => {
    let stop: (() => void) | undefined;
    const timer = setTimeout(() => {
      stop?.();
      resolve(false);
    }, ms);
    const wake = () => {
      stop?.();
      const next = check(wake);
      if (next === true) {
        clearTimeout(timer);
        resolve(true);
      } else stop = next;
    };
    wake();
  });
}

/** The items of `a` not matched one for one in `b` (multisets). */
export function difference(a: string[], b: string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    else out.push(x);
  }
  return out;
}
