/**
 * The load generator, in its own process: runs autocannon with the JSON config of argv[2] and
 * prints a summary as JSON. Config: `{ url, path?, connections, pipelining, duration, headers?,
 * method?, body?, requestsPerConnection? }`; with `requestsPerConnection` (`[[{ method, path,
 * body, headers }, ...], ...]`), connection i loops over list i (each writer toggles its own flag).
 */
import autocannon from 'autocannon';

const config = JSON.parse(process.argv[2]);
const options = {
  url: config.url + (config.path ?? ''),
  connections: config.connections,
  pipelining: config.pipelining,
  duration: config.duration,
  method: config.method ?? 'GET',
  headers: config.headers ?? {},
  timeout: 10,
};
if (config.body !== undefined) options.body = config.body;
if (config.requestsPerConnection) {
  let next = 0;
  const lists = config.requestsPerConnection;
  options.setupClient = (client) => client.setRequests(lists[next++ % lists.length]);
}

const result = await autocannon(options);
const summary = {
  requests: result.requests.total,
  duration: result.duration,
  rps: result.requests.total / result.duration,
  latency: { average: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([c, s]) => [c, s.count])),
  errors: result.errors,
  timeouts: result.timeouts,
};
process.stdout.write(JSON.stringify(summary));
