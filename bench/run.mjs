/**
 * `node bench/run.mjs [name ...]` (all by default): each `bench/<name>.mjs`'s `run({ log })` gives
 * `{ result, text }` on `FLAGWIRE_DIST` or `dist/`; prints the tables, merges the results into
 * bench/results/latest.json.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { cleanUp, dist, RESULTS_FILE, writeResults } from './lib/util.mjs';

/** In the order they run. */
const ORDER =
  'sdk-evaluate sdk-flags fanout writes sdk-propagation webhooks stream-load ofrep compression pattern targeting usage-ingest cost sign-in';
const ALL = ORDER.split(' ');
/** `postgres`: the Postgres figures, in `writes` and `fanout`. */
const ALIASES = { postgres: ['writes', 'fanout'] };
const wanted = process.argv.slice(2).flatMap((w) => ALIASES[w] ?? [w]);
const unknown = wanted.filter((w) => !ALL.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${ORDER}`);
  process.exit(2);
}
if (!existsSync(dist().path('server.js'))) {
  console.error(`${dist().path('server.js')} not found: run \`npm run build\` or set FLAGWIRE_DIST`);
  process.exit(2);
}
const cpus = os.cpus();
const meta = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  cpus: `${cpus.length} x ${cpus[0]?.model ?? '?'}`,
  memoryBytes: os.totalmem(),
  dist: dist().dir,
};
console.log(`flagwire benchmarks: node ${meta.node}, ${meta.cpus}, build ${meta.dist}`);
const results = {};
const texts = [];
const started = Date.now();
for (const name of ALL.filter((b) => wanted.length === 0 || wanted.includes(b))) {
  console.log(`\n== ${name}`);
  const t0 = Date.now();
  try {
    const { result, text } = await (await import(`./${name}.mjs`)).run({ log: console.log });
    results[name] = { ...result, elapsedSeconds: (Date.now() - t0) / 1000 };
    texts.push(text);
    console.log(`\n${text}`);
  } catch (error) {
    process.exitCode = 1;
    results[name] = { error: error?.stack ?? String(error) };
    console.error(`  ${name} failed: ${error?.stack ?? error}`);
  } finally {
    results[name].date = new Date().toISOString();
    await cleanUp();
  }
}
meta.elapsedSeconds = (Date.now() - started) / 1000;
writeResults(meta, results);
console.log(
  `\n== summary (${meta.elapsedSeconds.toFixed(0)} s)\n\n${texts.join('\n\n')}\n\nwrote ${RESULTS_FILE}`,
);
