// `npm start` runs this first: it builds dist/ when it is missing or older than the sources.
import { execSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

let built = 0;
try {
  built = statSync('dist/cli.js').mtimeMs;
} catch {}
const sources = Math.max(...['src', 'server', 'dashboard', 'package.json', 'tsup.config.ts'].map(newest));
if (built < sources) {
  console.error('flagwire: building dist/ ...');
  execSync('npm run build --silent', { stdio: ['ignore', 'ignore', 'inherit'] });
}
