/** Benchmark `webhooks`: `verifySignature` against `createHmac` by hand; delivery against no webhook. */
import { dist, fmt, runJson, table } from './lib/util.mjs';

export async function run() {
  const verify = await runJson('lib/webhooks-child.mjs', [dist().dir, 'verify']);
  const delivery = await runJson('lib/webhooks-child.mjs', [dist().dir, 'delivery']);
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
