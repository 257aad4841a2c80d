/**
 * Summarizes a V8 `.cpuprofile` (from `FLAGWIRE_BENCH_CPU_PROF=DIR node bench/run.mjs ...`):
 * top functions by self time and by inclusive time.
 *
 *   node bench/profile-summary.mjs FILE.cpuprofile [--top 30] [--filter SUBSTRING]
 *
 * `--filter` keeps only functions whose script URL contains SUBSTRING in the inclusive list
 * (e.g. the server bundle's file name).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const top = Number(args[args.indexOf('--top') + 1]) || 30;
const filterIndex = args.indexOf('--filter');
const filter = filterIndex >= 0 ? args[filterIndex + 1] : undefined;
if (!file) {
  console.error('usage: node bench/profile-summary.mjs FILE.cpuprofile [--top N] [--filter SUBSTRING]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Time per sample: the delta that follows it (V8's own convention).
const selfUs = new Map();
let totalUs = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  totalUs += dt;
}

const label = (node) => {
  const f = node.callFrame;
  const where = f.url ? `${basename(f.url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};

const self = new Map();
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  self.set(label(node), (self.get(label(node)) ?? 0) + us);
  // Inclusive: every distinct frame on the stack gets the sample once.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    if (filter && !(byId.get(cur).callFrame.url ?? '').includes(filter)) continue;
    inclusive.set(l, (inclusive.get(l) ?? 0) + us);
  }
}

const show = (title, map) => {
  console.log(`\n${title}`);
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, us] of rows)
    console.log(
      `  ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    );
};
console.log(`${file}: ${(totalUs / 1e6).toFixed(2)} s sampled`);
show('self time', self);
show(`inclusive time${filter ? ` (scripts matching ${filter})` : ''}`, inclusive);
