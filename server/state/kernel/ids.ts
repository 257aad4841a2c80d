/** Random identifiers and secrets (`docs/protocol.md` §2). */
import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters of `[A-Za-z0-9]`, uniformly random (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const newApiKey = (): string => `fw_live_${randomBase62(32)}`;
export const newWebhookId = (): string => `wh_${randomBase62(24)}`;
/** `whsec_` + 32 random bytes as base64url (43 characters). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;
export const newEpoch = (): string => randomBase62(12);
export const newEventId = (): string => `evt_${randomBase62(24)}`;
export const newDeliveryId = (): string => `dlv_${randomBase62(24)}`;
/** A change request's id (`docs/protocol.md` §10.7): `cr_` and 16 hex characters. */
export const newChangeRequestId = (): string => `cr_${randomBytes(8).toString('hex')}`;
/** A rule's id when the request gives none: stable from then on (`docs/protocol.md` §12.1). */
export const newRuleId = (): string => `r_${randomBase62(10)}`;
