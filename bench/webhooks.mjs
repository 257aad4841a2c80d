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
  const text = [
    table(
      ['webhooks: verify 1 KB body', 'verifications/s', 'vs by hand'],
      [
        [
          'verifySignature, Node build (node:crypto)',
          fmt.int(verify.node),
          fmt.x(verify.node / verify.baseline),
        ],
        ['verifySignature, pure-JS build', fmt.int(verify.web), fmt.x(verify.web / verify.baseline)],
        ['createHmac + timingSafeEqual by hand', fmt.int(verify.baseline), '1.00x'],
      ],
    ),
    table(
      [
        `webhooks: durable server, ${delivery.concurrency} writers`,
        'changes (events) per second',
        'vs no webhook',
      ],
      [
        [`${delivery.events} PATCHes, no webhook (baseline)`, fmt.int(without), '1.00x'],
        [
          `${delivery.events} PATCHes, each delivered to a webhook`,
          fmt.int(delivery.with.perSecond),
          fmt.x(delivery.with.perSecond / without),
        ],
      ],
    ),
  ].join('\n\n');
  return { result: { verify, delivery }, text };
}
