/**
 * The dashboard as `npm run build` puts it in `dist/dashboard/` (and the server serves it):
 * under 62.5 KiB minified and gzipped in total, with nothing loaded from another host.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';

const dir = new URL('../../../dist/dashboard/', import.meta.url).pathname;
/**
 * 60 KiB until the change requests' webhook events: the webhook form's checkboxes list
 * WEBHOOK_EVENT_KINDS, six more with them (+51 B, 61,409 -> 61,460 B measured), so 60.25 KiB.
 * 62.25 KiB with the change requests' pages (the Changes list, a request's page with its reviews
 * and actions, the flag page's "Request change" dialog, times in the viewer's zone and UTC):
 * +2,103 B (61,460 -> 63,563 B measured). 62.5 KiB with the pages following requests live
 * (`changeRequest` events), the approvals setting, keys that bypass approvals and a segment's
 * "Request change": +418 B (63,563 -> 63,981 B measured).
 */
const BUDGET = 62.5 * 1024;

it('ships the whole dashboard in under 62.5 KiB min+gzip', () => {
  const files = readdirSync(dir);
  expect(files).toEqual(expect.arrayContaining(['index.html', 'app.js', 'app.css', 'favicon.svg']));
  let total = 0;
  const sizes: string[] = [];
  for (const name of files) {
    const gzipped = gzipSync(readFileSync(join(dir, name)), { level: 9 }).length;
    total += gzipped;
    sizes.push(`${name} ${gzipped} B`);
  }
  console.info(`dashboard: ${total} bytes min+gzip in total (${sizes.join(', ')}; budget ${BUDGET})`);
  expect(total).toBeLessThan(BUDGET);
});

it('loads nothing from another host', () => {
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    expect(text, name).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(text, name).not.toMatch(/@import\s+url\(["']?https?:/);
    expect(text, name).not.toMatch(/import\s*\(?["']https?:/);
  }
});
