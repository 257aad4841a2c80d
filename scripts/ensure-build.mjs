// `npm start` runs this first: it builds dist/ when it is missing or older than the sources.
import { execSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

// The oldest of what a whole build writes last: a build cut short (tsup done, the dashboard not
// yet) builds again.
let built = 0;
try {
  built = Math.min(statSync('dist/cli.js').mtimeMs, statSync('dist/dashboard/index.html').mtimeMs);
} catch {}
const sources = Math.max(...['src', 'server', 'dashboard', 'package.json', 'tsup.config.ts'].map(newest));
if (built < sources) {
  console.error('flagwire: building dist/ ...');
  execSync('npm run build --silent', { stdio: ['ignore', 'ignore', 'inherit'] });
}
