/**
 * The load generator, in its own process: runs autocannon with the JSON config given
 * as argv[2] and prints a summary as JSON on stdout.
 *
 * Config: `{ url, path?, connections, pipelining?, duration, headers?, method?, body?,
 *            requestsPerConnection?: [[{ method, path, body, headers }...], ...] }`
 * With `requestsPerConnection`, connection i loops over its own request list (used by
 * the write benchmark: each connection toggles its own flag, so every PATCH commits).
 */
import autocannon from 'autocannon';

const config = JSON.parse(process.argv[2]);

const options = {
  url: config.url + (config.path ?? ''),
  connections: config.connections,
  pipelining: config.pipelining ?? 1,
  duration: config.duration,
  method: config.method ?? 'GET',
  headers: config.headers ?? {},
  timeout: 10,
};
if (config.body !== undefined) options.body = config.body;
if (config.requestsPerConnection) {
  let next = 0;
  const lists = config.requestsPerConnection;
  options.setupClient = (client) => {
    client.setRequests(lists[next++ % lists.length]);
  };
}

const result = await autocannon(options);
const statusCodes = result.statusCodeStats ?? {};
const summary = {
  requests: result.requests.total,
  duration: result.duration,
  rps: result.requests.total / result.duration,
  rpsAverage: result.requests.average,
  latency: {
    average: result.latency.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
  },
  throughputBytesPerSec: result.throughput.average,
  statusCodes: Object.fromEntries(Object.entries(statusCodes).map(([code, s]) => [code, s.count])),
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  resets: result.resets,
};
process.stdout.write(JSON.stringify(summary));
