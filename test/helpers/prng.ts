/** The seeded random source of the fuzzer and the chaos suite. */

/** mulberry32: a small seeded PRNG, so every random test case reproduces from its seed. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Picks by weight; values may be thunks (called only when picked). */
  weighted<T>(items: ReadonlyArray<readonly [number, () => T]>): T {
    let total = 0;
    for (const [weight] of items) total += weight;
    let roll = this.next() * total;
    for (const [weight, make] of items) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return items[items.length - 1]![1]();
  }

  /** `length` code points drawn from `alphabet` (by code point, so no lone surrogates). */
  str(alphabet: string, length: number): string {
    const points = Array.from(alphabet);
    let out = '';
    for (let i = 0; i < length; i++) out += points[this.int(points.length)];
    return out;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }
}
