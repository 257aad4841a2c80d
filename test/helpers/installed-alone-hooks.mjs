/**
 * Module hooks (`module.register`) that keep resolution inside one folder: a module found outside
 * `data.root` is not found, as Node reports a package that is not installed. An app run with them
 * sees only what its own `node_modules` holds, whatever the folders above it hold (a
 * `node_modules` higher up is searched by Node too).
 */
let root = '';

export function initialize(data) {
  root = data.root;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:') && !resolved.url.startsWith(root)) {
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    throw Object.assign(error, { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return resolved;
}
