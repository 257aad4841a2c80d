/**
 * The page's live feed, `GET /admin/api/events` (`docs/protocol.md` §10.5): one EventSource
 * while signed in, fanned out to the screens that listen. A reconnect counts as "anything may
 * have changed" so nothing missed while the stream was down stays stale.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** `env` is `project/environment`, or `*` after a reconnect. */
interface Listener {
  change?: (env: string) => void;
  structure?: () => void;
}

const listeners = new Set<Listener>();
const countListeners = new Set<(counts: Record<string, number>) => void>();
let counts: Record<string, number> = {};

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function emitAll(): void {
  for (const l of listeners) {
    l.change?.('*');
    l.structure?.();
  }
}

/** Opens the stream; `onClosed` runs when the browser gives up on it (e.g. a 401). Returns close. */
export function openEvents(onClosed: () => void): () => void {
  const source = new EventSource('/admin/api/events');
  let opened = false;
  source.addEventListener('open', () => {
    if (opened) emitAll();
    opened = true;
  });
  source.addEventListener('change', (event) => {
    const data = parse((event as MessageEvent<string>).data) as { env?: unknown } | undefined;
    if (typeof data?.env !== 'string') return;
    for (const l of listeners) l.change?.(data.env);
  });
  source.addEventListener('structure', () => {
    for (const l of listeners) l.structure?.();
  });
  source.addEventListener('streams', (event) => {
    const data = parse((event as MessageEvent<string>).data);
    if (typeof data !== 'object' || data === null) return;
    counts = { ...counts, ...(data as Record<string, number>) };
    for (const l of countListeners) l(counts);
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) onClosed();
  });
  return () => source.close();
}

/** Runs `reload` whenever a flag of `envId` (`project/environment`; `null`: any) changes. */
export function useEnvChanges(envId: string | null, reload: () => void): void {
  const ref = useRef(reload);
  ref.current = reload;
  useEffect(() => {
    const listener: Listener = {
      change: (env) => (envId === null || env === envId || env === '*') && ref.current(),
    };
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, [envId]);
}

/** Runs `reload` when projects, environments or API keys change. */
export function useStructureChanges(reload: () => void): void {
  const ref = useRef(reload);
  ref.current = reload;
  useEffect(() => {
    const listener: Listener = { structure: () => ref.current() };
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
}

/** Open SDK streams per `project/environment`, as last reported; empty until the first report. */
export function useStreamCounts(): Record<string, number> {
  const [value, setValue] = useState(counts);
  useEffect(() => {
    setValue(counts);
    countListeners.add(setValue);
    return () => void countListeners.delete(setValue);
  }, []);
  return value;
}

/** Forget the counts on sign-out. */
export function resetStreamCounts(): void {
  counts = {};
}
