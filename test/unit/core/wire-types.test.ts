/**
 * The API's TypeScript types (`src/core/wire/`) are what `npm run wire-types` writes from the
 * schemas (`src/core/schemas/`): a schema changed without its types fails here.
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

it('src/core/wire is what the schemas give', () => {
  let out = '';
  try {
    execFileSync(process.execPath, ['scripts/wire-types.mjs', '--check'], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    out = String((error as { stderr?: string }).stderr ?? error);
  }
  expect(out).toBe('');
});
