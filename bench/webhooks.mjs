/**
 * Benchmark: webhooks (`docs/protocol.md` §8).
 *
 * - Verification throughput, 1 KB body: `verifySignature` of the pure-JS build (browsers, edge)
 *   and of the Node build (`node:crypto`), against `createHmac` + `timingSafeEqual` written by
 *   hand, alternating rounds in one process.
 * - Delivery throughput: a durable server (one fdatasync per commit, group commit) with one
 *   webhook subscribed to every toggle and a fast receiver on loopback in the same process;
 *   2,000 PATCHes from 16 writers; events per second until the receiver has all of them. Baseline
 *   in the same run: the same PATCHes against the same kind of server without a webhook.
 *
 * The build under test: FLAGWIRE_DIST (default `dist/`). Settings: FLAGWIRE_BENCH_WEBHOOK_EVENTS (2000).
 */
import { resolve } from 'node:path';
import { BENCH_DIR, fmt, spawnNode, table } from './lib/util.mjs';

export const name = 'webhooks';

async function child(mode) {
  const dist = resolve(process.env.FLAGWIRE_DIST ?? resolve(BENCH_DIR, '..', 'dist'));
  const { child: proc, exited } = spawnNode(resolve(BENCH_DIR, 'lib', 'webhooks-child.mjs'), [dist, mode], {
    ipc: false,
  });
  let out = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const { code } = await exited;
  if (code !== 0) throw new Error(`webhooks ${mode} child exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop());
}

export async function run({ log = console.log } = {}) {
  log('\n== webhooks');
  const verify = await child('verify');
  const delivery = await child('delivery');
  const result = { verify, delivery };
  const text = [
    table(
      [
        {
          what: 'verifySignature, Node build (node:crypto)',
          rate: fmt.int(verify.node),
          ratio: `${(verify.node / verify.baseline).toFixed(2)}x`,
        },
        {
          what: 'verifySignature, pure-JS build',
          rate: fmt.int(verify.web),
          ratio: `${(verify.web / verify.baseline).toFixed(2)}x`,
        },
        { what: 'createHmac + timingSafeEqual by hand', rate: fmt.int(verify.baseline), ratio: '1.00x' },
      ],
      [
        { key: 'what', title: 'webhooks: verify 1 KB body', align: 'left' },
        { key: 'rate', title: 'verifications/s' },
        { key: 'ratio', title: 'vs by hand' },
      ],
    ),
    table(
      [
        {
          what: `${delivery.events} PATCHes, no webhook (baseline)`,
          rate: fmt.int(delivery.events / (delivery.without.totalMs / 1000)),
          ratio: '1.00x',
        },
        {
          what: `${delivery.events} PATCHes, each delivered to a webhook`,
          rate: fmt.int(delivery.with.perSecond),
          ratio: `${(delivery.with.perSecond / (delivery.events / (delivery.without.totalMs / 1000))).toFixed(2)}x`,
        },
      ],
      [
        { key: 'what', title: 'webhooks: durable server, 16 writers', align: 'left' },
        { key: 'rate', title: 'changes (events) per second' },
        { key: 'ratio', title: 'vs no webhook' },
      ],
    ),
  ].join('\n\n');
  log(text);
  return { result, text };
}
