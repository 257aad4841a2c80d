/**
 * The page's live feed, `GET /admin/api/events` (`docs/protocol.md` §10.5): one EventSource
 * while signed in, fanned out to the screens that listen. A reconnect counts as "anything may
 * have changed" so nothing missed while the stream was down stays stale. Whether the feed is up
 * is state of its own (`useConnection`): the page says so while it is not.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** `env` is `project/environment`, or `*` after a reconnect. */
interface Listener {
  change?: (env: string) => void;
  /** A change request of `env` moved. */
  requests?: (env: string) => void;
  structure?: () => void;
}

const listeners = new Set<Listener>();
const countListeners = new Set<(counts: Record<string, number>) => void>();
let counts: Record<string, number> = {};

/**
 * `connecting` until the first open, `open` while the feed flows, `lost` from a failure until
 * the next open (the browser, or the app after a refusal, keeps trying meanwhile).
 */
export type Connection = 'connecting' | 'open' | 'lost';
let connection: Connection = 'connecting';
const connectionListeners = new Set<(state: Connection) => void>();

function setConnection(state: Connection): void {
  if (state === connection) return;
  connection = state;
  for (const l of connectionListeners) l(state);
}

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
    l.requests?.('*');
    l.structure?.();
  }
}

/** Opens the stream; `onClosed` runs when the browser gives up on it (e.g. a 401). Returns close. */
export function openEvents(onClosed: () => void): () => void {
  const source = new EventSource('/admin/api/events');
  let opened = false;
  source.addEventListener('open', () => {
    const again = opened || connection === 'lost';
    opened = true;
    setConnection('open');
    if (again) emitAll();
  });
  for (const kind of ['change', 'changeRequest'] as const)
    source.addEventListener(kind, (event) => {
      const data = parse((event as MessageEvent<string>).data) as { env?: unknown } | undefined;
      if (typeof data?.env !== 'string') return;
      for (const l of listeners) (kind === 'change' ? l.change : l.requests)?.(data.env);
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
    setConnection('lost');
    if (source.readyState === EventSource.CLOSED) onClosed();
  });
  return () => source.close();
}

/**
 * Runs `reload` whenever a flag of `envId` (`project/environment`; `null`: any) changes; with
 * `requests`, whenever one of its change requests moves too.
 */
export function useEnvChanges(envId: string | null, reload: () => void, requests = false): void {
  const ref = useRef(reload);
  ref.current = reload;
  useEffect(() => {
    const change = (env: string) => (envId === null || env === envId || env === '*') && ref.current();
    const listener: Listener = requests ? { change, requests: change } : { change };
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, [envId, requests]);
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

/** The feed's state, re-rendering on every change of it. */
export function useConnection(): Connection {
  const [value, setValue] = useState(connection);
  useEffect(() => {
    setValue(connection);
    connectionListeners.add(setValue);
    return () => void connectionListeners.delete(setValue);
  }, []);
  return value;
}

/** Runs `back` each time the feed opens again after it was lost. */
export function useConnectionBack(back: () => void): void {
  const ref = useRef(back);
  ref.current = back;
  useEffect(() => {
    let last = connection;
    const listener = (state: Connection) => {
      if (state === 'open' && last === 'lost') ref.current();
      last = state;
    };
    connectionListeners.add(listener);
    return () => void connectionListeners.delete(listener);
  }, []);
}

/** Forget the counts and the feed's state on sign-out. */
export function resetStreamCounts(): void {
  counts = {};
  setConnection('connecting');
}
