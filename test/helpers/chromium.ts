/**
 * Finds a headless-capable Chromium for the browser tests, so `npm install && npm test` runs
 * them on a machine that has nothing but Node and npm, and a contributor's own browser is used
 * where there is one. In order:
 *
 * 1. `CHROMIUM_PATH`: a browser the caller names (it must exist: a wrong path is an error,
 *    never a silent fall-through).
 * 2. Playwright's own browsers (`npx playwright install chromium`), under
 *    `PLAYWRIGHT_BROWSERS_PATH` or Playwright's cache folder.
 * 3. A browser installed on the machine: Chromium or Google Chrome in their usual places on
 *    Linux, macOS and Windows, then on `PATH`.
 * 4. The Chromium that ships inside the `@sparticuz/chromium` dev dependency (Linux x64 only):
 *    unpacked once into the temp folder, no download, no root.
 *
 * None: an error that names every place looked at and what to install.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { chromium } from 'playwright-core';

export interface FoundChromium {
  executablePath: string;
  /** Extra launch arguments this browser needs. */
  args: string[];
  /** Environment variables the browser process needs besides this process's. */
  env: Record<string, string>;
  /** Where it was found, for the test log. */
  source: string;
}

/** What the finder may look at; the defaults are this process's. */
export interface ChromiumSearch {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  arch: string;
  home: string;
  exists(path: string): boolean;
  list(dir: string): string[];
  /** Playwright's expected Chromium for its own version, if it names one. */
  playwrightPath(): string | undefined;
  /** Unpacks the bundled Chromium; absent where the package is not installed. */
  bundled:
    | (() => Promise<{ executablePath: string; args: string[]; env: Record<string, string> }>)
    | undefined;
}

/** Arguments every launch gets: no network of its own, no first-run work. */
export const COMMON_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
];

/**
 * Arguments of `@sparticuz/chromium` that break what the tests check (see the package's
 * notes): `--single-process` kills the browser when a second context opens, and
 * `--disable-web-security` stops Chromium sending `Origin`, even on same-origin POSTs.
 */
const BUNDLED_ARGS_DROPPED = new Set(['--single-process', '--disable-web-security', "--headless='shell'"]);

const SYSTEM_PATHS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
    '/opt/google/chrome/chrome',
  ],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
  ],
  win32: [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
  ],
};

const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

/** Executables inside one folder of Playwright's cache, per platform. */
const PLAYWRIGHT_LAYOUTS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['chrome-linux64/chrome', 'chrome-linux/chrome'],
  darwin: [
    'chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium',
    'chrome-mac-x64/Chromium.app/Contents/MacOS/Chromium',
    'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
  ],
  win32: ['chrome-win64\\chrome.exe', 'chrome-win\\chrome.exe'],
};

function playwrightCacheDirs(s: ChromiumSearch): string[] {
  if (s.env.PLAYWRIGHT_BROWSERS_PATH) return [s.env.PLAYWRIGHT_BROWSERS_PATH];
  if (s.platform === 'darwin') return [join(s.home, 'Library', 'Caches', 'ms-playwright')];
  if (s.platform === 'win32') {
    return s.env.LOCALAPPDATA ? [join(s.env.LOCALAPPDATA, 'ms-playwright')] : [];
  }
  return [join(s.env.XDG_CACHE_HOME ?? join(s.home, '.cache'), 'ms-playwright')];
}

/** Every candidate path, in the order it is tried (steps 2 and 3 above). */
export function candidatePaths(s: ChromiumSearch): Array<{ path: string; source: string }> {
  const out: Array<{ path: string; source: string }> = [];
  const own = s.playwrightPath();
  if (own) out.push({ path: own, source: "Playwright's browser" });
  for (const dir of playwrightCacheDirs(s)) {
    const builds = s
      .list(dir)
      .filter((name) => /^chromium-\d+$/.test(name))
      .sort((a, b) => Number(b.slice(9)) - Number(a.slice(9)));
    for (const build of builds) {
      for (const layout of PLAYWRIGHT_LAYOUTS[s.platform] ?? []) {
        out.push({ path: join(dir, build, layout), source: `Playwright's ${build}` });
      }
    }
  }
  for (const path of SYSTEM_PATHS[s.platform] ?? []) out.push({ path, source: 'installed on this machine' });
  const ext = s.platform === 'win32' ? '.exe' : '';
  for (const dir of (s.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of PATH_NAMES) out.push({ path: join(dir, name + ext), source: 'on PATH' });
  }
  return out;
}

export class NoChromiumError extends Error {
  override name = 'NoChromiumError';
}

/** Finds a browser as the module comment says; rejects with NoChromiumError when there is none. */
export async function findChromium(s: ChromiumSearch = defaultSearch()): Promise<FoundChromium> {
  const named = s.env.CHROMIUM_PATH;
  if (named) {
    if (!s.exists(named)) throw new NoChromiumError(`CHROMIUM_PATH=${named} does not exist`);
    return { executablePath: named, args: COMMON_ARGS, env: {}, source: 'CHROMIUM_PATH' };
  }
  const tried = candidatePaths(s);
  const hit = tried.find((c) => s.exists(c.path));
  if (hit)
    return { executablePath: hit.path, args: COMMON_ARGS, env: {}, source: `${hit.source} (${hit.path})` };
  if (s.platform === 'linux' && s.arch === 'x64' && s.bundled) {
    const bundled = await s.bundled();
    const args = bundled.args.filter((a) => !BUNDLED_ARGS_DROPPED.has(a));
    return {
      executablePath: bundled.executablePath,
      args: [...new Set([...args, ...COMMON_ARGS])],
      env: bundled.env,
      source: `@sparticuz/chromium (${bundled.executablePath})`,
    };
  }
  const places = [...new Set(tried.map((c) => c.path))].slice(0, 12).join(', ');
  throw new NoChromiumError(
    `no Chromium for the browser tests on ${s.platform}-${s.arch}. Looked at CHROMIUM_PATH, ${places}` +
      `${tried.length > 12 ? ', ...' : ''}; the bundled @sparticuz/chromium runs on Linux x64 only. ` +
      'Install one: `npx playwright install chromium`, or Google Chrome, or set CHROMIUM_PATH to a ' +
      'Chromium or Chrome executable.',
  );
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

async function unpackBundled(): Promise<{
  executablePath: string;
  args: string[];
  env: Record<string, string>;
}> {
  const { default: Chromium } = await import('@sparticuz/chromium');
  const executablePath = await Chromium.executablePath();
  // Its fonts are unpacked beside it; a machine without fontconfig's own setup uses them.
  const env: Record<string, string> =
    existsSync('/etc/fonts/fonts.conf') || process.env.FONTCONFIG_PATH
      ? {}
      : { FONTCONFIG_PATH: join(tmpdir(), 'fonts') };
  return { executablePath, args: Chromium.args, env };
}

export function defaultSearch(): ChromiumSearch {
  return {
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    home: homedir(),
    exists: existsSync,
    list: listDir,
    playwrightPath: () => {
      try {
        return chromium.executablePath();
      } catch {
        return undefined; // a platform Playwright has no build for
      }
    },
    bundled: unpackBundled,
  };
}
