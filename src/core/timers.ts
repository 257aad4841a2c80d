/**
 * Timers that keep a process alive only when asked to (`hold`; otherwise `unref` where the
 * runtime has it), for the SDK client, the management client and `./deadline-exchange.ts`.
 * Cancel them with `clearTimeout`, which ignores `undefined`.
 */
export type Timer = ReturnType<typeof setTimeout>;

export function later(ms: number, fn: () => void, hold?: boolean): Timer {
  const timer = setTimeout(fn, ms);
  if (!hold) (timer as { unref?: () => void }).unref?.();
  return timer;
}
