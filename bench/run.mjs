/**
 * Runs the benchmarks: `node bench/run.mjs [sdk-flags|fanout|writes|sdk-evaluate|sdk-propagation|webhooks|stream-load|ofrep|compression|postgres ...]` (all by default).
 *
 * The server under test is `dist/server.js` unless `FLAGWIRE_SERVER_MODULE` names another
 * build. Every figure is a ratio against a baseline measured in the same run (the machine
 * is noisy). Prints a table per benchmark and writes bench/results/latest.json.
 *
 * Environment knobs: FLAGWIRE_BENCH_ROUNDS, FLAGWIRE_BENCH_DURATION (sdk-flags, ofrep, compression),
 * FLAGWIRE_BENCH_STREAMS, FLAGWIRE_BENCH_PATCHES (fanout), FLAGWIRE_BENCH_WRITE_DURATION,
 * FLAGWIRE_BENCH_TMPDIR (writes, stream-load), FLAGWIRE_BENCH_LOAD_STREAMS and the other
 * FLAGWIRE_BENCH_LOAD_* knobs (stream-load, see bench/README.md), FLAGWIRE_BENCH_CPU_PROF=DIR
 * (CPU profiles of the server children; summarize with `node bench/profile-summary.mjs FILE`),
 * FLAGWIRE_BENCH_PG_* (postgres, see bench/README.md).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import * as compression from './compression.mjs';
import * as fanout from './fanout.mjs';
import { RESULTS_FILE, serverModule, writeResults } from './lib/util.mjs';
import * as ofrep from './ofrep.mjs';
import * as postgres from './postgres.mjs';
import * as sdkEvaluate from './sdk-evaluate.mjs';
import * as sdkFlags from './sdk-flags.mjs';
import * as sdkPropagation from './sdk-propagation.mjs';
import * as streamLoad from './stream-load.mjs';
import * as webhooks from './webhooks.mjs';
import * as writes from './writes.mjs';

const ALL = [
  sdkFlags,
  fanout,
  writes,
  sdkEvaluate,
  sdkPropagation,
  webhooks,
  streamLoad,
  ofrep,
  compression,
  postgres,
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !ALL.some((b) => b.name === w));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${ALL.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const selected = wanted.length > 0 ? ALL.filter((b) => wanted.includes(b.name)) : ALL;

const mod = serverModule();
if (!existsSync(mod.path)) {
  console.error(`server module ${mod.path} not found: run \`npm run build\` or set FLAGWIRE_SERVER_MODULE`);
  process.exit(2);
}

const meta = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}`,
  memoryBytes: os.totalmem(),
  serverModule: mod.path,
};
console.log(`flagwire benchmarks: node ${meta.node}, ${meta.cpus}, server ${mod.path}`);

const results = {};
const texts = [];
let failed = false;
const started = Date.now();
for (const bench of selected) {
  console.log(`\n== ${bench.name}`);
  const t0 = Date.now();
  try {
    const { result, text } = await bench.run({ log: console.log });
    result.date = new Date().toISOString();
    result.elapsedSeconds = (Date.now() - t0) / 1000;
    results[bench.name] = result;
    texts.push(text);
    console.log(`\n${text}`);
  } catch (error) {
    failed = true;
    results[bench.name] = { date: new Date().toISOString(), error: error?.stack ?? String(error) };
    console.error(`  ${bench.name} failed: ${error?.stack ?? error}`);
  }
}

meta.elapsedSeconds = (Date.now() - started) / 1000;
writeResults(meta, results);
console.log(`\n== summary (${meta.elapsedSeconds.toFixed(0)} s)\n`);
console.log(texts.join('\n\n'));
console.log(`\nwrote ${RESULTS_FILE}`);
process.exitCode = failed ? 1 : 0;
