/**
 * The README's command-line table (`## The reference server`, `### Command line`) lists every
 * option `flagwire-server` takes (the `parseArgs` options of `server/cli.ts`, read as text: the
 * module starts a server when imported), and no option it does not take.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The long names in the `options: { ... }` object given to `parseArgs`. */
function cliOptions(source: string): string[] {
  const block = /parseArgs\(\{[\s\S]*?\n\s*options: \{\n([\s\S]*?)\n\s*\},\n/.exec(source)?.[1] ?? '';
  return [...block.matchAll(/^\s*'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/gm)].map((m) => m[1]!);
}

/** The long names in the first column of the table under `### Command line`. */
function readmeOptions(readme: string): string[] {
  const section = /\n### Command line\n([\s\S]*?)\n#{2,3} /.exec(readme)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `-'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`--([a-z][a-z-]*)/g)].map((m) => m[1]!));
}

describe('the README command-line table', () => {
  const cli = cliOptions(read('server/cli.ts'));
  const readme = readmeOptions(read('README.md'));

  it('reads both lists', () => {
    // Guards the parsing itself: a changed layout must fail here, not pass with two empty lists.
    expect(cli).toEqual(expect.arrayContaining(['port', 'data', 'webhook-targets', 'no-usage', 'help']));
    expect(cli.length).toBeGreaterThan(20);
    expect(readme).toEqual(expect.arrayContaining(['port', 'data']));
  });

  it('lists every option the CLI takes, once, and none it does not', () => {
    expect(cli.filter((option) => !readme.includes(option))).toEqual([]);
    expect(readme.filter((option) => !cli.includes(option))).toEqual([]);
    expect(readme.length).toBe(new Set(readme).size);
  });
});
