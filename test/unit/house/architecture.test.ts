/**
 * Layers that run one way (`docs/architecture.md`): every relative import in `src/` and
 * `server/` goes down or sideways within its layer, never up. The rules are a table here and a
 * picture there; a new import that runs back up fails this test with the file, the import and
 * the rule it breaks. No files of `src/`, `server/` and `typegen/` import each other, directly or
 * round a longer loop (`import type` and `export ... from` count): a cycle fails with its files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The server's layers, lowest first. A file may import its own layer's folder and any lower
 * layer; the front's handlers (`dashboard`, `ofrep`) share the `http` pipeline.
 */
const SERVER_LAYERS: { name: string; folders: string[]; alsoImports?: string[] }[] = [
  { name: 'base', folders: ['server/errors.ts', 'server/logger.ts', 'server/cors.ts'] },
  { name: 'store', folders: ['server/store/'] },
  { name: 'state', folders: ['server/state/'] },
  { name: 'stream', folders: ['server/stream/'] },
  { name: 'webhooks', folders: ['server/webhooks/'] },
  { name: 'http', folders: ['server/http/'] },
  { name: 'dashboard', folders: ['server/dashboard/'], alsoImports: ['http'] },
  { name: 'ofrep', folders: ['server/ofrep/'], alsoImports: ['http'] },
];
/** Layers that sit side by side: neither imports the other. */
const SIDE_BY_SIDE = [
  ['stream', 'webhooks'],
  ['http', 'dashboard', 'ofrep'],
];

/**
 * The state layer: a kernel (model, ops, the one applier, snapshots, the ledger) that imports no
 * domain, and domains, each a folder, that import the kernel and only the domains named here
 * (`docs/architecture.md`, "The state layer"). `server/state/domains.ts` composes them; nothing
 * in the state layer imports it.
 */
const STATE_DOMAINS: Record<string, string[]> = {
  kernel: [],
  flags: ['webhooks'],
  segments: ['flags', 'webhooks'],
  copy: ['flags', 'segments', 'webhooks'],
  changes: ['flags', 'segments', 'webhooks'],
  webhooks: [],
  admin: [],
  usage: [],
};
const statePart = (file: string): string | undefined =>
  file === 'server/state/domains.ts' ? 'domains' : /^server\/state\/([^/]+)\//.exec(file)?.[1];

/** Why a state file `from` may not import the state file `to`, or `undefined` when it may. */
function stateViolation(from: string, to: string): string | undefined {
  const a = statePart(from);
  const b = statePart(to);
  if (!a || !b || a === b || a === 'domains') return undefined;
  if (b === 'domains') return 'nothing in the state layer imports its composition (server/state/domains.ts)';
  if (b === 'kernel') return undefined;
  if (a === 'kernel') return 'the state kernel imports no domain';
  if (!(a in STATE_DOMAINS)) return `server/state/${a} is not a known state folder`;
  return STATE_DOMAINS[a]!.includes(b)
    ? undefined
    : `state/${a} imports state/${b}, a domain it does not build on`;
}

/**
 * Imports that run back up today, each with the issue item that removes it. The list only
 * shrinks: an entry that no longer occurs fails the test too, so it is deleted with its fix.
 */
const KNOWN: { from: RegExp; to: RegExp; why: string }[] = [];

function serverLayer(file: string): number | undefined {
  const index = SERVER_LAYERS.findIndex((layer) =>
    layer.folders.some((folder) => (folder.endsWith('/') ? file.startsWith(folder) : file === folder)),
  );
  return index < 0 ? undefined : index;
}

/** Why `from` may not import `to` (both relative to the repository), or `undefined` when it may. */
function violation(from: string, to: string): string | undefined {
  // The SDK: `src/core` (with `src/errors.ts`) imports nothing above it; the management client
  // shares core helpers, not the client's internals; the client knows nothing built on it.
  const sdkPart = (file: string) =>
    file === 'src/errors.ts'
      ? 'core'
      : (/^src\/([^/.]+)\//.exec(file)?.[1] ?? (file.startsWith('src/') ? 'entry' : undefined));
  const fromSdk = sdkPart(from);
  const toSdk = sdkPart(to);
  // The API's schemas (`src/core/schemas`) are the server's: they validate requests and print its
  // OpenAPI documents. The SDK and the dashboard read their types from `src/core/wire`, so no
  // schema (nor TypeBox) reaches a browser bundle; the validators (`src/core/validation.ts`,
  // `src/core/targeting/validate*.ts`) are the server's too.
  const schemaUser = (file: string) =>
    file.startsWith('server/') ||
    file.startsWith('src/core/schemas/') ||
    file === 'src/core/validation.ts' ||
    file.startsWith('src/core/targeting/validate');
  if (to.startsWith('src/core/schemas/') && !schemaUser(from))
    return 'only the server uses the schemas; the SDK and the dashboard take their types from src/core/wire';
  // The dashboard is a browser app of its own: itself and src/core (the admin API's wire types
  // in src/core/admin-wire.ts, small pure helpers), nothing of the server or the rest of the SDK.
  if (from.startsWith('dashboard/'))
    return to.startsWith('dashboard/') || toSdk === 'core'
      ? undefined
      : 'the dashboard imports only itself and src/core';
  if (to.startsWith('dashboard/')) return 'nothing imports the dashboard: the server serves its build';
  if (from.startsWith('server/')) {
    if (toSdk !== undefined)
      return toSdk === 'core' ? undefined : 'the server takes only src/core from the SDK';
    const inState = stateViolation(from, to);
    if (inState) return inState;
    const a = serverLayer(from);
    const b = serverLayer(to);
    if (a === undefined) return undefined; // the composition root (startServer, the CLI, the barrel)
    if (b === undefined) return `${SERVER_LAYERS[a]!.name} imports the composition root`;
    if (a === b || b < a) {
      const names = [SERVER_LAYERS[a]!.name, SERVER_LAYERS[b]!.name];
      if (a !== b && SIDE_BY_SIDE.some((group) => names.every((name) => group.includes(name)))) {
        if (!(SERVER_LAYERS[a]!.alsoImports ?? []).includes(names[1]!))
          return `${names[0]} and ${names[1]} sit side by side`;
      }
      return undefined;
    }
    if ((SERVER_LAYERS[a]!.alsoImports ?? []).includes(SERVER_LAYERS[b]!.name)) return undefined;
    return `${SERVER_LAYERS[a]!.name} imports ${SERVER_LAYERS[b]!.name}, a layer above it`;
  }
  if (fromSdk === undefined) return undefined;
  if (to.startsWith('server/')) return 'the SDK imports nothing of the server';
  if (fromSdk === toSdk || toSdk === 'core') return undefined;
  if (fromSdk === 'core') return 'src/core imports nothing above it';
  if (fromSdk === 'entry') return undefined;
  const uses: Record<string, string[]> = {
    client: [],
    management: [],
    webhooks: [],
    openfeature: ['client'],
    testing: ['client', 'webhooks'],
  };
  return uses[fromSdk]?.includes(toSdk!) ? undefined : `src/${fromSdk} imports src/${toSdk}`;
}

/** Every relative import of every source file under `src/`, `server/` and `typegen/`. */
function imports(): { from: string; to: string; typeOnly: boolean }[] {
  const files: string[] = [];
  const list = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) list(path);
      else files.push(path);
    }
  };
  list('src');
  list('server');
  list('typegen');
  list('dashboard');
  const sources = new Set(files);
  const found: { from: string; to: string; typeOnly: boolean }[] = [];
  for (const path of files.filter((file) => /\.(ts|tsx|mts)$/.test(file))) {
    const text = readFileSync(join(ROOT, path), 'utf8');
    for (const match of text.matchAll(
      // `import x from`, `import type`, `export ... from` and a bare `import './x.js'`.
      /(?:^|\n)\s*(?:import|export)(\s+type)?(?:[^'";]*?from)?\s*['"](\.[^'"]+)['"]/g,
    )) {
      // `./x.js` names `./x.ts` (or `.tsx`) in the sources.
      const target = relative(ROOT, resolve(dirname(join(ROOT, path)), match[2]!)).replace(/\.js$/, '');
      const to = ['.ts', '.tsx'].map((ext) => target + ext).find((p) => sources.has(p)) ?? target;
      found.push({ from: path, to, typeOnly: match[1] !== undefined });
    }
  }
  return found;
}

/**
 * The import cycles among `files` (Tarjan's strongly connected components): each as one loop
 * through its component, `a -> b -> a`, and the component's other files if the loop misses some.
 */
function cycles(edges: { from: string; to: string }[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)!.includes(file)) components.push(component.sort());
  };
  for (const file of [...next.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) => {
    // The shortest loop from the component's first file back to it, staying inside.
    const inside = new Set(component);
    const start = component[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0 && !cameFrom.has(start)) {
      const file = queue.shift()!;
      for (const to of next.get(file)!) {
        if (!inside.has(to) || cameFrom.has(to)) continue;
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
    const loop: string[] = [];
    for (let file = cameFrom.get(start)!; file !== start; file = cameFrom.get(file)!) loop.unshift(file);
    const rest = component.filter((file) => file !== start && !loop.includes(file));
    return `${[start, ...loop, start].join(' -> ')}${rest.length > 0 ? ` (with ${rest.join(', ')})` : ''}`;
  });
}

describe('layers', () => {
  const all = imports();

  it('finds the imports it checks', () => {
    expect(all.length).toBeGreaterThan(200);
    expect(all).toContainEqual({
      from: 'server/start-server.ts',
      to: 'server/state/flags/flag-service.ts',
      typeOnly: false,
    });
  });

  it('has no import that runs back up, but the known ones being removed', () => {
    const broken = all
      .map(({ from, to }) => ({ from, to, why: violation(from, to) }))
      .filter(({ from, to, why }) => why && !KNOWN.some((k) => k.from.test(from) && k.to.test(to)));
    expect(broken.map(({ from, to, why }) => `${from} -> ${to}: ${why}`)).toEqual([]);
  });

  it('has no import cycle: no files import each other, directly or round a loop', () => {
    const sources = new Set(all.map(({ from }) => from));
    expect(cycles(all.filter(({ to }) => sources.has(to)))).toEqual([]);
  });

  it('reports a cycle of any length with its files', () => {
    const edge = (from: string, to: string) => ({ from, to });
    expect(cycles([edge('a', 'b'), edge('b', 'a'), edge('b', 'c')])).toEqual(['a -> b -> a']);
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])).toEqual([
      'a -> b -> c -> a',
    ]);
    expect(cycles([edge('a', 'b'), edge('b', 'a'), edge('a', 'c'), edge('c', 'a')])).toEqual([
      'a -> b -> a (with c)',
    ]);
    expect(cycles([edge('a', 'a')])).toEqual(['a -> a']);
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('a', 'c')])).toEqual([]);
  });

  it('lists only known exceptions that still occur', () => {
    for (const known of KNOWN) {
      expect(
        all.some(({ from, to }) => known.from.test(from) && known.to.test(to)),
        known.why,
      ).toBe(true);
    }
  });

  it.each([
    ['server/store/postgres/storage.ts', 'server/http/app.ts'],
    ['server/state/flags/flag-service.ts', 'server/webhooks/dispatcher.ts'],
    ['server/webhooks/dispatcher.ts', 'server/http/app.ts'],
    ['server/stream/sdk-view.ts', 'server/http/respond.ts'],
    ['server/stream/hub.ts', 'server/webhooks/dispatcher.ts'],
    ['server/http/app.ts', 'server/dashboard/handler.ts'],
    ['server/ofrep/evaluate.ts', 'src/client/evaluate.ts'],
    ['server/errors.ts', 'server/state/kernel/model.ts'],
    ['src/core/bucketing.ts', 'src/client/evaluate.ts'],
    ['src/management/request.ts', 'src/client/exchange.ts'],
    ['src/client/create-client.ts', 'src/openfeature/provider.ts'],
    ['src/client/create-client.ts', 'server/state/kernel/model.ts'],
    ['server/state/kernel/applier.ts', 'server/state/flags/ops.ts'],
    ['server/state/kernel/model.ts', 'server/state/usage/model.ts'],
    ['server/state/webhooks/deliveries.ts', 'server/state/flags/representation.ts'],
    ['server/state/flags/flag-service.ts', 'server/state/segments/ops.ts'],
    ['server/state/usage/usage-service.ts', 'server/state/flags/flag-service.ts'],
    ['server/state/flags/ops.ts', 'server/state/domains.ts'],
    ['dashboard/types.ts', 'server/state/kernel/model.ts'],
    ['dashboard/screens/deliveries.tsx', 'src/management/create-management-client.ts'],
    ['server/dashboard/static.ts', 'dashboard/main.tsx'],
    ['src/client/parse.ts', 'src/core/schemas/sdk.ts'],
    ['dashboard/types.ts', 'src/core/schemas/admin.ts'],
    ['src/core/types.ts', 'src/core/schemas/flags.ts'],
  ])('refuses %s -> %s', (from, to) => {
    expect(violation(from, to)).toBeDefined();
  });

  it.each([
    ['server/http/app.ts', 'server/state/flags/flag-service.ts'],
    ['server/ofrep/handler.ts', 'server/http/app.ts'],
    ['server/state/kernel/ledger.ts', 'server/store/storage.ts'],
    ['server/state/segments/ops.ts', 'server/state/flags/history.ts'],
    ['server/state/flags/events.ts', 'server/state/webhooks/deliveries.ts'],
    ['server/state/domains.ts', 'server/state/usage/state.ts'],
    ['server/webhooks/dispatcher.ts', 'server/state/domains.ts'],
    ['dashboard/types.ts', 'src/core/admin-wire.ts'],
    ['dashboard/screens/keys.tsx', 'dashboard/api.ts'],
    ['server/webhooks/dispatcher.ts', 'server/logger.ts'],
    ['server/start-server.ts', 'server/http/app.ts'],
    ['server/ofrep/evaluate.ts', 'src/core/targeting/detail.ts'],
    ['src/openfeature/provider.ts', 'src/client/create-client.ts'],
    ['src/client/create-client.ts', 'src/core/bucketing.ts'],
    ['server/http/handlers/flags.ts', 'src/core/schemas/flags.ts'],
    ['src/core/types.ts', 'src/core/wire/flags.ts'],
  ])('allows %s -> %s', (from, to) => {
    expect(violation(from, to)).toBeUndefined();
  });
});
