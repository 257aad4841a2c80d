/**
 * The Usage tab's keys that SDKs evaluated but that are not flags of the environment: a flag
 * deleted while in use ("deleted 3 days ago", with its history), or one never created here. Each
 * gets its caller's default value; each links to the new flag page with its key filled in
 * ("Create flag", "Create it again").
 */
import { envHref } from '../../route.js';
import type { UnknownKey } from '../../usage/api.js';
import { relativeTime } from '../../usage/relative-time.js';
import { UnknownKeysTable } from '../../usage/unknown-keys.js';

export function UnknownKeys({
  project,
  env,
  keys,
  now,
}: {
  project: string;
  env: string;
  keys: UnknownKey[] | undefined;
  now: number;
}) {
  const create = (k: UnknownKey, text: string, after: string) => (
    <a href={envHref(project, env, 'new-flag', k.key)}>
      {text}
      <span class="visually-hidden">{after}</span>
    </a>
  );
  return (
    <section class="usage-unknown" aria-labelledby="usage-unknown">
      <h3 id="usage-unknown">Keys evaluated that are not flags</h3>
      <p class="hint">
        Code asks for these keys and gets its own default value: a flag deleted while still in use, or one
        that was never created here.
      </p>
      {!keys ? (
        <p>Loading…</p>
      ) : keys.length === 0 ? (
        <p class="empty">Every key the SDKs evaluated in the last 30 days is a flag of this environment.</p>
      ) : (
        <UnknownKeysTable
          keys={keys}
          now={now}
          flag={[
            'Flag',
            (k) =>
              k.deletedAt ? (
                <>
                  <span title={k.deletedAt}>deleted {relativeTime(k.deletedAt, now)}</span>:{' '}
                  <a href={envHref(project, env, 'history', k.key)}>
                    history<span class="visually-hidden"> of {k.key}</span>
                  </a>{' '}
                  · {create(k, 'Create it again', ` (${k.key})`)}
                </>
              ) : (
                <>never existed here: {create(k, 'Create flag', ` ${k.key}`)}</>
              ),
          ]}
        />
      )}
    </section>
  );
}
