/**
 * Writes the API's TypeScript types from its schemas: each `src/core/schemas/<name>.ts` gives
 * `src/core/wire/<name>.ts`, one declaration per exported schema, named as it is exported, with
 * the schema's `description` as its comment. The SDK, the management client and the dashboard
 * read these types; the server validates through the schemas and serves them as OpenAPI. So a
 * shape is written once, and the published declarations stay plain TypeScript with no
 * dependency.
 *
 *   node scripts/wire-types.mjs          write the files
 *   node scripts/wire-types.mjs --check  exit 1, naming them, when a file is not what it would write
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMAS = join(ROOT, 'src/core/schemas');
const WIRE = join(ROOT, 'src/core/wire');
const KIND = Symbol.for('TypeBox.Kind');
const OPTIONAL = Symbol.for('TypeBox.Optional');
/** Names a schema may print as (`x-ts`) that come from hand-written modules. */
const EXTERNAL = { JsonValue: '../json-value.js' };

const isSchema = (value) => typeof value === 'object' && value !== null && KIND in value;

/** The schema modules, loaded: `{ module: { exportName: schema } }`. */
async function loadSchemas() {
  const modules = readdirSync(SCHEMAS)
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .map((f) => f.slice(0, -3))
    .sort();
  const out = await build({
    entryPoints: Object.fromEntries(modules.map((m) => [m, join(SCHEMAS, `${m}.ts`)])),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    outdir: '/out',
    logLevel: 'silent',
  });
  const loaded = {};
  for (const m of modules) {
    const file = out.outputFiles.find((f) => f.path === `/out/${m}.js`);
    const url = `data:text/javascript;base64,${Buffer.from(file.text).toString('base64')}`;
    const exports = await import(url);
    loaded[m] = Object.fromEntries(Object.entries(exports).filter(([, v]) => isSchema(v)));
  }
  return loaded;
}

const comment = (text, indent) =>
  text ? `${indent}/** ${String(text).replaceAll('*/', '*\\/').replaceAll('\n', `\n${indent} * `)} */\n` : '';
const KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Prints one module's declarations; `owner` maps each `$id` to the module that exports it. */
function printModule(module, schemas, owner) {
  const imports = new Map(); // name -> from
  const named = new Map(Object.entries(schemas).map(([name, s]) => [s, name]));
  const typeOf = (schema, indent, root) => {
    if (!root && named.has(schema)) return named.get(schema);
    if (!root && schema.$id && owner.has(schema.$id)) {
      const from = owner.get(schema.$id);
      if (from !== module) imports.set(schema.$id, `./${from}.js`);
      return schema.$id;
    }
    if (schema['x-ts']) {
      const from = EXTERNAL[schema['x-ts']];
      if (from) imports.set(schema['x-ts'], from);
      return schema['x-ts'];
    }
    if ('const' in schema) return JSON.stringify(schema.const);
    if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
    if (schema.anyOf) return schema.anyOf.map((s) => wrap(typeOf(s, indent))).join(' | ');
    if (schema.allOf) return schema.allOf.map((s) => wrap(typeOf(s, indent))).join(' & ');
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return schema.prefixItems
          ? `[${schema.prefixItems.map((s) => typeOf(s, indent)).join(', ')}]`
          : `${wrap(typeOf(schema.items, indent))}[]`;
      case 'object':
        return objectOf(schema, indent);
      default:
        return 'unknown';
    }
  };
  const wrap = (text) => (/[|&]/.test(text) && !/^[{[]/.test(text) ? `(${text})` : text);
  const objectOf = (schema, indent) => {
    const inner = `${indent}  `;
    const required = new Set(schema.required ?? []);
    const lines = Object.entries(schema.properties ?? {}).map(([name, s]) => {
      const key = KEY.test(name) ? name : JSON.stringify(name);
      const optional = required.has(name) && !(OPTIONAL in s) ? '' : '?';
      return `${comment(s.description, inner)}${inner}${key}${optional}: ${typeOf(s, inner)};`;
    });
    const rest = schema.patternProperties
      ? Object.values(schema.patternProperties)[0]
      : isSchema(schema.additionalProperties)
        ? schema.additionalProperties
        : schema.additionalProperties === true
          ? { [KIND]: 'Unknown' }
          : undefined;
    if (rest) {
      if (lines.length === 0) return `Record<string, ${typeOf(rest, indent)}>`;
      lines.push(`${inner}[key: string]: ${typeOf(rest, inner)};`);
    }
    return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
  };
  const body = Object.entries(schemas)
    .map(([name, schema]) => {
      const text = typeOf(schema, '', true);
      const doc = comment(schema.description, '');
      return schema.type === 'object' && text.startsWith('{')
        ? `${doc}export interface ${name} ${text}`
        : `${doc}export type ${name} = ${text};`;
    })
    .join('\n\n');
  const byModule = new Map();
  for (const [name, from] of imports) byModule.set(from, [...(byModule.get(from) ?? []), name]);
  const head = [...byModule]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([from, names]) => `import type { ${names.sort().join(', ')} } from '${from}';`)
    .join('\n');
  return [
    `/**\n * The types of \`../schemas/${module}.ts\`, written by \`npm run wire-types\`: do not edit; change\n * the schema and run it again.\n */`,
    head,
    body,
  ]
    .filter(Boolean)
    .join('\n\n')
    .concat('\n');
}

/** Formats like the rest of the code (biome, by the file's own path). */
function format(path, text) {
  const biome = join(ROOT, 'node_modules/.bin/biome');
  return execFileSync(biome, ['format', `--stdin-file-path=${path}`], { input: text, encoding: 'utf8' });
}

export async function wireTypes() {
  const loaded = await loadSchemas();
  const owner = new Map();
  for (const [module, schemas] of Object.entries(loaded))
    for (const [name, schema] of Object.entries(schemas)) {
      if (schema.$id && schema.$id !== name)
        throw new Error(`${module}.ts: ${name} has $id ${schema.$id}: an $id must be its export's name`);
      if (schema.$id) owner.set(schema.$id, module);
    }
  const files = {};
  for (const [module, schemas] of Object.entries(loaded)) {
    if (Object.keys(schemas).length === 0) continue;
    const path = join(WIRE, `${module}.ts`);
    files[path] = format(path, printModule(module, schemas, owner));
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const files = await wireTypes();
  const stale = [];
  for (const [path, text] of Object.entries(files)) {
    let now = '';
    try {
      now = readFileSync(path, 'utf8');
    } catch {}
    if (now === text) continue;
    if (check) stale.push(path.slice(ROOT.length + 1));
    else writeFileSync(path, text);
  }
  if (stale.length) {
    console.error(`not what the schemas give: ${stale.join(', ')}; run \`npm run wire-types\``);
    process.exit(1);
  }
}
