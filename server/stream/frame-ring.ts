/**
 * The stream frames one capability of an environment's SDK view keeps for `Last-Event-ID` resume
 * (`docs/protocol.md` §5.3): those of the last `size` revisions, and at most `maxChars`
 * characters of them: past it the oldest go, the newest stays. A client further behind gets a
 * full sync. Frames are kept as given: a frame both capabilities send alike is one string held
 * by both rings, and counted by each against its own bound.
 */
export class FrameRing {
  /** Frames indexed by revision modulo the length; `''` where one was let go. */
  readonly #frames: string[];
  readonly #maxChars: number;
  /** The revision of the last frame; the view's revision before the first. */
  #newest: number;
  /** Oldest revision whose frame is kept; nothing is kept before the first push. */
  #oldest: number;
  /** Characters of the frames kept. */
  #chars = 0;

  /** A ring of a view at `revision`, with no frame yet. */
  constructor(size: number, maxChars: number, revision: number) {
    this.#frames = new Array<string>(Math.max(1, size));
    this.#maxChars = maxChars;
    this.#newest = revision;
    this.#oldest = revision + 1;
  }

  /** Keeps `frame`, the frame of `revision` (the next after the last). */
  push(revision: number, frame: string): void {
    const size = this.#frames.length;
    const slot = revision % size;
    // The frame this one replaces in the ring, when it was still kept.
    if (revision - size >= this.#oldest) this.#chars -= this.#frames[slot]!.length;
    this.#frames[slot] = frame;
    this.#chars += frame.length;
    this.#newest = revision;
    if (revision - this.#oldest >= size) this.#oldest = revision - size + 1;
    while (this.#chars > this.#maxChars && this.#oldest < revision) {
      const old = this.#oldest % size;
      this.#chars -= this.#frames[old]!.length;
      this.#frames[old] = '';
      this.#oldest++;
    }
  }

  /**
   * The frames after revision `last` up to the newest (none when `last` is the newest), or
   * `undefined` when they are not all kept or `last` is ahead.
   */
  since(last: number): string[] | undefined {
    if (last === this.#newest) return [];
    if (last > this.#newest || last < this.#oldest - 1) return undefined;
    const frames: string[] = [];
    for (let rev = last + 1; rev <= this.#newest; rev++)
      frames.push(this.#frames[rev % this.#frames.length]!);
    return frames;
  }
}
