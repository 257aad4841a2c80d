/**
 * Benchmark: webhooks (`docs/protocol.md` §8), measured in `lib/webhooks-child.mjs`: `verifySignature`
 * on a 1 KB body (Node and pure-JS builds) against `createHmac` + `timingSafeEqual` by hand, in
 * alternating rounds; and 2,000 PATCHes from 16 writers on a durable server, each delivered to a
 * webhook on loopback (FLAGWIRE_BENCH_WEBHOOK_EVENTS): changes per second, against the same
 * PATCHes without a webhook.
 */
import { join } from 'node:path';
import { BENCH_DIR, dist, fmt, runJson, table } from './lib/util.mjs';

export async function run() {
  const child = (mode) => runJson(join(BENCH_DIR, 'lib', 'webhooks-child.mjs'), [dist().dir, mode]);
  const verify = await child('verify');
  const delivery = await child('delivery');
  const without = delivery.events / (delivery.without.totalMs / 1000);
  const row = (label, rate, base) => [label, fmt.int(rate), fmt.x(rate / base)];
  const text = [
    table('webhooks: verify 1 KB body|verifications/s|vs by hand', [
      row('verifySignature, Node build (node:crypto)', verify.node, verify.baseline),
      row('verifySignature, pure-JS build', verify.web, verify.baseline),
      row('createHmac + timingSafeEqual by hand', verify.baseline, verify.baseline),
    ]),
    table(
      `webhooks: durable server, ${delivery.concurrency} writers|changes (events) per second|vs no webhook`,
      [
        row(`${delivery.events} PATCHes, no webhook (baseline)`, without, without),
        row(`${delivery.events} PATCHes, each delivered to a webhook`, delivery.with.perSecond, without),
      ],
    ),
  ].join('\n\n');
  return { result: { verify, delivery }, text };
}
