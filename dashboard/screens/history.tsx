/**
 * `#/env/P/E/history[/FLAG]`: every committed change, newest first, of one flag or all
 * (`segment:KEY` for a segment's). Targeting changes read as sentences (rules added, moved or
 * changed, keys added and removed: `targeting/diff.ts`), not as JSON. Values users wrote
 * (descriptions, key names) are isolated and shortened, each with a way to see it whole; on a
 * phone each change is a card. A large list's change comes counted, with a sample (§12.5).
 */
import { useId } from 'preact/hooks';
import { api, envApi } from '../api.js';
import { LongText } from '../components/long-text.js';
import { CellLabel, EmptyState, ErrorText, TableWrap } from '../components/page-parts.js';
import { useEnvChanges } from '../events.js';
import { actorText, dateTime, jsonish } from '../format.js';
import { useResource } from '../resource.js';
import { envHref, navigate } from '../route.js';
import { countedChanges, fieldChanges, fieldName, isCounted } from '../targeting/diff.js';
import type { Flag, HistoryChange, HistoryEntry } from '../types.js';

interface Props {
  project: string;
  env: string;
  flag: string | undefined;
}

export function HistoryScreen({ project, env, flag }: Props) {
  const id = useId();
  const path = envApi(project, env, 'history') + (flag ? `?flag=${encodeURIComponent(flag)}` : '');
  const history = useResource(() => api<HistoryEntry[]>(path), path);
  const flagsPath = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  useEnvChanges(`${project}/${env}`, () => {
    history.reload();
    flags.reload();
  });

  const keys = (flags.data ?? []).map((f) => f.key);
  // A deleted flag keeps its history: still offer the one asked for.
  if (flag && !keys.includes(flag)) keys.push(flag);
  const entries = history.data;

  return (
    <>
      <h2>History</h2>
      <div class="field">
        <label for={id}>History of flag</label>
        <select
          id={id}
          value={flag ?? ''}
          onChange={(e) => navigate(envHref(project, env, 'history', e.currentTarget.value || undefined))}
        >
          <option value="">All flags</option>
          {keys.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </div>
      <ErrorText message={history.error ?? flags.error} />
      {!entries ? (
        !history.error && <p>Loading…</p>
      ) : entries.length === 0 ? (
        <EmptyState
          text={flag ? `No changes to ${flag} yet.` : 'No changes yet. Every change to a flag shows here.'}
        >
          <a href={envHref(project, env, 'flags')}>Go to the flags</a>
        </EmptyState>
      ) : (
        <TableWrap label="History" cards>
          <table class="history">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Flag</th>
                <th scope="col">Action</th>
                <th scope="col">Changes</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={`${entry.revision}:${entry.flag}`}>
                  <td class="nowrap when">
                    <time dateTime={entry.at}>{dateTime(entry.at)}</time>
                  </td>
                  <td class="mono key">
                    <bdi>{entry.flag}</bdi>
                  </td>
                  <td>
                    <CellLabel text="Action" />
                    {entry.action}
                    {entry.copiedFrom !== undefined && (
                      <span class="copied">
                        {' '}
                        (copied from <bdi>{entry.copiedFrom}</bdi>)
                      </span>
                    )}
                    {entry.copiedTo !== undefined && (
                      <span class="copied">
                        {' '}
                        to <bdi>{entry.copiedTo}</bdi>
                      </span>
                    )}
                  </td>
                  <td>
                    <CellLabel text="Changes" />
                    <ul class="changes">
                      {entry.changes.map((c) => (
                        <Change key={c.field} change={c} entry={entry.flag} />
                      ))}
                    </ul>
                  </td>
                  <td>
                    <CellLabel text="By" />
                    <bdi>{actorText(entry.actor)}</bdi>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}

/** Fields whose changes read as sentences (rules added, keys removed...) rather than values. */
const IN_WORDS = new Set([
  'variants',
  'fallthrough',
  'targets',
  'rules',
  'prerequisites',
  'included',
  'excluded',
]);

const isEmpty = (v: unknown): boolean =>
  v === null ||
  v === undefined ||
  (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);

/**
 * One field's change: targeting in sentences (`targeting/diff.ts`), a large list's keys counted
 * with the server's sample (`docs/protocol.md` §12.5), anything else `old → new`.
 */
function Change({ change: c, entry }: { change: HistoryChange; entry: string }) {
  if (isCounted(c) || IN_WORDS.has(c.field)) {
    const lines = isCounted(c)
      ? countedChanges(c)
      : fieldChanges(c.field, c.from, c.to, entry.startsWith('segment:'));
    // A list created empty is no change to speak of; one only reordered says so.
    if (lines.length === 0 && !isCounted(c) && isEmpty(c.from) && isEmpty(c.to)) return null;
    if (lines.length === 0) lines.push('reordered');
    return (
      <li class="in-words">
        {fieldName(c.field)}:
        <ul>
          {lines.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the sentences of one change, in order
            <li key={i}>
              <LongText text={line} limit={160} lines={2} what={`a change of ${c.field} of ${entry}`} />
            </li>
          ))}
        </ul>
      </li>
    );
  }
  return (
    <li>
      {c.field}: <Value value={c.from} what={`the old ${c.field} of ${entry}`} /> →{' '}
      <Value value={c.to} what={`the new ${c.field} of ${entry}`} />
    </li>
  );
}

/** A value before or after a change, as JSON, shortened when long (the audit log shows them so too). */
export const Value = ({ value, what }: { value: unknown; what: string }) => (
  <LongText text={jsonish(value)} limit={80} lines={2} what={what} />
);
