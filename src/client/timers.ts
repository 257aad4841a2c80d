/**
 * Timers that never keep a process alive (`unref` where the runtime has it). Cancel them
 * with `clearTimeout`, which ignores `undefined`.
 */
export type Timer = ReturnType<typeof setTimeout>;

export function later(ms: number, fn: () => void): Timer {
  const timer = setTimeout(fn, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
