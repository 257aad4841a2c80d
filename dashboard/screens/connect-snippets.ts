/**
 * The Connect screen's start-a-client snippets, in JavaScript (runs as pasted into an `.mjs`
 * file: no type syntax, no `!`) and TypeScript (type-checks under `strict`), both naming a real
 * flag of the environment and reading it with the getter its type needs (`docs/protocol.md` §9).
 */
import type { Flag } from '../types.js';

/** What the snippets name: the environment's first flag, or a placeholder when it has none. */
export interface SnippetFlag {
  key: string;
  type: Flag['type'];
  /** True when the environment has no flag and `key` is a stand-in. */
  placeholder: boolean;
}

export const PLACEHOLDER_FLAG = 'my-flag';

export function snippetFlag(flags: Flag[]): SnippetFlag {
  const first = flags[0];
  return first
    ? { key: first.key, type: first.type, placeholder: false }
    : { key: PLACEHOLDER_FLAG, type: 'boolean', placeholder: true };
}

interface Read {
  /** The call that reads the flag for one user. */
  call: string;
  /** The TypeScript type of what it answers. */
  type: string;
}

function readOf(flag: SnippetFlag): Read {
  // Flag keys are `[A-Za-z0-9._-]` (FLAG_KEY_PATTERN): nothing in one needs escaping in a quote.
  const key = flag.key;
  const user = "{ key: 'user-42' }";
  switch (flag.type) {
    case 'string':
      return { call: `client.getString('${key}', ${user}, 'default')`, type: 'string' };
    case 'number':
      return { call: `client.getNumber('${key}', ${user}, 0)`, type: 'number' };
    case 'json':
      return { call: `client.getJson('${key}', ${user}, {})`, type: 'JsonValue' };
    default:
      return { call: `client.isEnabled('${key}', ${user})`, type: 'boolean' };
  }
}

export interface Snippets {
  javascript: string;
  typescript: string;
}

/** Both snippets for the environment `envId` (`project/env`) served at `origin`. */
export function snippets(origin: string, envId: string, flag: SnippetFlag): Snippets {
  const read = readOf(flag);
  const label = `${flag.key}:`;
  // An origin has no quote in it (scheme, host, port).
  const baseUrl = `${origin}/api/v1`;
  const javascript = `// app.mjs: run with FLAGWIRE_KEY=<an API key of ${envId}> node app.mjs
import { createClient } from 'flagwire';

const client = createClient({
  baseUrl: '${baseUrl}',
  apiKey: process.env.FLAGWIRE_KEY, // API keys tab; in browsers, a read-only key
});
await client.ready();
console.log('${label}', ${read.call});
await client.close();`;
  const typeImport = read.type === 'JsonValue' ? ', type JsonValue' : '';
  const typescript = `// app.ts: needs @types/node; run with FLAGWIRE_KEY=<an API key of ${envId}>
import { createClient${typeImport} } from 'flagwire';

const apiKey = process.env.FLAGWIRE_KEY;
if (!apiKey) throw new Error('Set FLAGWIRE_KEY to an API key of ${envId} (API keys tab)');

const client = createClient({ baseUrl: '${baseUrl}', apiKey });
await client.ready();
const value: ${read.type} = ${read.call};
console.log('${label}', value);
await client.close();`;
  return { javascript, typescript };
}
