/**
 * The built package as users import it: Node picks the `node` build (webhook HMAC on
 * `node:crypto`), other runtimes the pure-JS one; ESM and CommonJS both work.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const GITHUB = {
  secret: "It's a Secret to Everybody",
  body: 'Hello, World!',
  header: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
};

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim();
}

describe('package exports', () => {
  it('resolves flagwire to the Node build under Node, for import and require', () => {
    expect(node(['--input-type=module', '-e', "console.log(import.meta.resolve('flagwire'))"])).toMatch(
      /dist\/index\.node\.js$/,
    );
    expect(node(['-e', "console.log(require.resolve('flagwire'))"])).toMatch(/dist\/index\.node\.cjs$/);
  });

  const args = JSON.stringify([GITHUB.body, GITHUB.header, GITHUB.secret]).slice(1, -1);
  const check = `console.log(v(${args}) && !v('x', ${JSON.stringify(GITHUB.header)}, ${JSON.stringify(GITHUB.secret)}))`;
  it.each([
    [
      'ESM, Node build',
      ['--input-type=module', '-e', `import { verifySignature as v } from 'flagwire'; ${check}`],
    ],
    ['CJS, Node build', ['-e', `const { verifySignature: v } = require('flagwire'); ${check}`]],
    [
      'ESM, pure-JS build',
      ['--input-type=module', '-e', `import { verifySignature as v } from './dist/index.js'; ${check}`],
    ],
  ])('verifies the GitHub vector (%s)', (_, argv) => {
    expect(node(argv)).toBe('true');
  });

  it('exports the server entry and the same SDK names from every build', () => {
    const names = (spec: string) =>
      node([
        '--input-type=module',
        '-e',
        `import * as m from '${spec}'; console.log(Object.keys(m).sort().join(','))`,
      ]);
    expect(names('./dist/index.node.js')).toBe(names('./dist/index.js'));
    expect(names('flagwire/server')).toContain('startServer');
    expect(names('flagwire/testing')).toContain('createTestClient');
    expect(names('flagwire/openfeature')).toContain('FlagwireProvider');
    expect(names('flagwire/openfeature/web')).toBe('FlagwireWebProvider');
  });
});
