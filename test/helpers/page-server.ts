/**
 * A test page on its own origin: `entry` bundled for the browser by esbuild and served as
 * `/app.js` under a blank HTML page, on 127.0.0.1:0 (another origin than the reference server).
 */
import { createServer } from 'node:http';
import { build } from 'esbuild';

export interface TestPage {
  /** The page's origin, `http://127.0.0.1:PORT`. */
  url: string;
  /** The bundled script. */
  bundle: string;
  close(): void;
}

export async function servePage(entry: URL): Promise<TestPage> {
  const result = await build({
    entryPoints: [entry.pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'silent',
  });
  const bundle = result.outputFiles[0]!.text;
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/app.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    } else {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><body>loading</body><script type="module" src="/app.js"></script>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    bundle,
    close: () => server.close(),
  };
}
