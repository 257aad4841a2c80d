/** What a log line may say about a database URL: `HOST:PORT/DB`, never the user or password. */
export function describeDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('the database URL is not a URL: use postgres://USER:PASSWORD@HOST:PORT/DATABASE');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(
      `the database URL must start with postgres:// (got ${JSON.stringify(parsed.protocol.slice(0, -1))})`,
    );
  }
  const database = decodeURIComponent(parsed.pathname.slice(1)) || 'postgres';
  return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}/${database}`;
}
