/**
 * Keys that SDKs evaluated but that are not flags of the environment: code still asking for a
 * flag deleted while in use ("deleted 3 days ago"), or for one never created here (a typo, or a
 * flag of another environment). Each gets its caller's default value; each links to the new flag
 * page with its key filled in ("Create flag", "Create it again").
 */
import { CellLabel, TableWrap } from '../../components/bits.js';
import { number } from '../../format.js';
import { envHref } from '../../route.js';
import { Age, fromNow, OFF, type UnknownKey } from './usage-common.js';

export function UnknownKeys({
  project,
  env,
  keys,
  now,
}: {
  project: string;
  env: string;
  keys: UnknownKey[] | typeof OFF | undefined;
  now: number;
}) {
  if (keys === OFF) return null;
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
        <TableWrap label="Keys evaluated that are not flags" cards>
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Evaluations</th>
                <th scope="col">Last evaluated</th>
                <th scope="col">Flag</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.key}>
                  <td class="mono key">
                    <bdi>{k.key}</bdi>
                  </td>
                  <td class="num">
                    <CellLabel text="Evaluations" />
                    {number(k.count)}
                  </td>
                  <td>
                    <CellLabel text="Last evaluated" />
                    <Age iso={k.lastEvaluatedAt} now={now} />
                  </td>
                  <td>
                    <CellLabel text="Flag" />
                    {k.deletedAt ? (
                      <>
                        <span title={k.deletedAt}>deleted {fromNow(k.deletedAt, now)}</span>:{' '}
                        <a href={envHref(project, env, 'history', k.key)}>
                          history<span class="visually-hidden"> of {k.key}</span>
                        </a>{' '}
                        ·{' '}
                        <a href={envHref(project, env, 'new-flag', k.key)}>
                          Create it again<span class="visually-hidden"> ({k.key})</span>
                        </a>
                      </>
                    ) : (
                      <>
                        never existed here:{' '}
                        <a href={envHref(project, env, 'new-flag', k.key)}>
                          Create flag<span class="visually-hidden"> {k.key}</span>
                        </a>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
