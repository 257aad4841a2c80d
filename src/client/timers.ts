/** Timers that never keep a process alive (`unref` where the runtime has it). */
export type Timer = ReturnType<typeof setTimeout>;

export function later(ms: number, fn: () => void): Timer {
  const timer = setTimeout(fn, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

export function cancel(timer: Timer | undefined): undefined {
  if (timer !== undefined) clearTimeout(timer);
  return undefined;
}
