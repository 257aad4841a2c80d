/**
 * The browser finder of the browser tests (test/helpers/chromium.ts): a named browser wins,
 * then Playwright's, then the machine's, then the bundled one on Linux x64; with none, an
 * error that says what to install.
 */
import { describe, expect, it } from 'vitest';
import { type ChromiumSearch, findChromium, NoChromiumError } from '../../helpers/chromium.js';

function search(overrides: Partial<ChromiumSearch> & { files?: string[] } = {}): ChromiumSearch {
  const files = new Set(overrides.files ?? []);
  return {
    env: { PATH: '/usr/local/bin:/usr/bin' },
    platform: 'linux',
    arch: 'x64',
    home: '/home/dev',
    exists: (path) => files.has(path),
    list: (dir) => [
      ...new Set(
        [...files].filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1).split('/')[0]!),
      ),
    ],
    playwrightPath: () => undefined,
    bundled: async () => ({
      executablePath: '/tmp/chromium',
      args: ['--single-process', '--disable-web-security', '--no-zygote', "--headless='shell'"],
      env: { FONTCONFIG_PATH: '/tmp/fonts' },
    }),
    ...overrides,
  };
}

describe('findChromium', () => {
  it('uses CHROMIUM_PATH first, and refuses one that does not exist', async () => {
    const s = search({
      env: { CHROMIUM_PATH: '/opt/my/chrome' },
      files: ['/opt/my/chrome', '/usr/bin/chromium'],
    });
    expect((await findChromium(s)).executablePath).toBe('/opt/my/chrome');
    await expect(findChromium(search({ env: { CHROMIUM_PATH: '/nope' } }))).rejects.toThrow(
      'CHROMIUM_PATH=/nope does not exist',
    );
  });

  it("prefers Playwright's newest Chromium over the system's", async () => {
    const cache = '/home/dev/.cache/ms-playwright';
    const s = search({
      files: [
        `${cache}/chromium-1100/chrome-linux/chrome`,
        `${cache}/chromium-1255/chrome-linux64/chrome`,
        '/usr/bin/chromium',
      ],
    });
    expect((await findChromium(s)).executablePath).toBe(`${cache}/chromium-1255/chrome-linux64/chrome`);
    const custom = search({
      env: { PLAYWRIGHT_BROWSERS_PATH: '/pw' },
      files: ['/pw/chromium-7/chrome-linux/chrome'],
    });
    expect((await findChromium(custom)).executablePath).toBe('/pw/chromium-7/chrome-linux/chrome');
  });

  it("finds the machine's Chromium or Chrome, on Linux, macOS and on PATH", async () => {
    expect((await findChromium(search({ files: ['/usr/bin/chromium'] }))).executablePath).toBe(
      '/usr/bin/chromium',
    );
    const mac = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
    const onMac = await findChromium(search({ platform: 'darwin', arch: 'arm64', files: [mac] }));
    expect(onMac.executablePath).toBe(mac);
    const onPath = await findChromium(search({ files: ['/usr/local/bin/google-chrome'] }));
    expect(onPath).toMatchObject({
      executablePath: '/usr/local/bin/google-chrome',
      args: expect.arrayContaining(['--no-sandbox']),
    });
  });

  it('falls back to the bundled Chromium on Linux x64, without the arguments that break the tests', async () => {
    const found = await findChromium(search());
    expect(found.executablePath).toBe('/tmp/chromium');
    expect(found.source).toContain('@sparticuz/chromium');
    expect(found.args).toContain('--no-zygote');
    expect(found.args).not.toContain('--single-process');
    expect(found.args).not.toContain('--disable-web-security');
    expect(found.env).toEqual({ FONTCONFIG_PATH: '/tmp/fonts' });
  });

  it('says what to install where there is no browser at all', async () => {
    const none = findChromium(search({ platform: 'darwin', arch: 'arm64' }));
    await expect(none).rejects.toBeInstanceOf(NoChromiumError);
    await expect(findChromium(search({ platform: 'darwin', arch: 'arm64' }))).rejects.toThrow(
      /no Chromium for the browser tests on darwin-arm64.*npx playwright install chromium.*CHROMIUM_PATH/,
    );
    await expect(findChromium(search({ arch: 'arm64' }))).rejects.toThrow(/Linux x64 only/);
  });
});
