/** autocannon in its own process: the JSON config of argv[2] (connection i loops over list i of
 * `requestsPerConnection`) → a JSON summary. */
import autocannon from 'autocannon';

const config = JSON.parse(process.argv[2]);
const { url, path = '', connections, pipelining, duration, method = 'GET', headers = {} } = config;
const options = { url: url + path, connections, pipelining, duration, method, headers, timeout: 10 };
if (config.body !== undefined) options.body = config.body;
const lists = config.requestsPerConnection;
let next = 0;
if (lists) options.setupClient = (client) => client.setRequests(lists[next++ % lists.length]);
const result = await autocannon(options);
const codes = Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]);
const summary = {
  requests: result.requests.total,
  duration: result.duration,
  rps: result.requests.total / result.duration,
  latency: { average: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
  statusCodes: Object.fromEntries(codes),
  errors: result.errors,
  timeouts: result.timeouts,
};
process.stdout.write(JSON.stringify(summary));
