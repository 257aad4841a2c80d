/**
 * `#/env/P/E/segments`: the environment's segments (users by key or by rules,
 * `docs/protocol.md` §12.3), with their counts and the flags that use them; a new one is
 * created here and opens on its own page, where its users are pasted and its rules built.
 */
import { useId, useState } from 'preact/hooks';
import { DESCRIPTION_MAX_LENGTH } from '../../../src/core/limits.js';
import { api, envApi } from '../../api.js';
import { CharCount, overBy } from '../../components/char-count.js';
import { KeyField, keyProblem, keyUsable } from '../../components/key-field.js';
import { LongText } from '../../components/long-text.js';
import { CellLabel, EmptyState, ErrorText, focusById, TableWrap } from '../../components/page-parts.js';
import { RoleNote } from '../../components/role-note.js';
import { useEnvChanges } from '../../events.js';
import { number } from '../../format.js';
import { useResource } from '../../resource.js';
import { useCan } from '../../roles.js';
import { envHref, navigate } from '../../route.js';
import type { Flag, SegmentView } from '../../types.js';
import { useAction } from '../../use-action.js';

const NEW_KEY_ID = 'new-segment-key';

/** The flags whose rules name segment `key`, sorted. */
export const usersOf = (flags: readonly Flag[], key: string): string[] =>
  flags
    .filter((f) =>
      f.rules?.some((r) => r.clauses.some((c) => c.op === 'inSegment' && c.values.includes(key))),
    )
    .map((f) => f.key)
    .sort();

export function SegmentsScreen({ project, env }: { project: string; env: string }) {
  const path = envApi(project, env, 'segments');
  const segments = useResource(() => api<SegmentView[]>(path), path);
  const flagsPath = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  useEnvChanges(`${project}/${env}`, () => {
    segments.reload();
    flags.reload();
  });
  const list = segments.data;
  const editor = useCan(project, 'editor');
  return (
    <>
      <h2>Segments</h2>
      <p class="hint">
        A segment is a group of users (listed by key, or matched by rules) that flags' rules can name: “is in
        segment”.
      </p>
      <RoleNote allowed={editor} what="Creating and changing segments" />
      {list && editor.ok && <NewSegmentForm project={project} env={env} taken={list.map((s) => s.key)} />}
      <ErrorText message={segments.error} />
      {!list ? (
        !segments.error && <p>Loading…</p>
      ) : list.length === 0 ? (
        <EmptyState text="No segments yet. Create one for a group of users that several rules target (beta testers, staff).">
          {editor.ok && (
            <button type="button" class="primary" onClick={() => focusById(NEW_KEY_ID)}>
              Create the first segment
            </button>
          )}
        </EmptyState>
      ) : (
        <TableWrap label="Segments" cards>
          <table>
            <thead>
              <tr>
                <th scope="col">Segment</th>
                <th scope="col">Included</th>
                <th scope="col">Excluded</th>
                <th scope="col">Rules</th>
                <th scope="col">Used by</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => {
                const users = usersOf(flags.data ?? [], s.key);
                return (
                  <tr key={s.key}>
                    <td class="mono key">
                      <a href={envHref(project, env, 'segments', s.key)}>
                        <bdi>{s.key}</bdi>
                      </a>
                    </td>
                    <td class="num">
                      <CellLabel text="Included" />
                      {number(s.included.length)}
                    </td>
                    <td class="num">
                      <CellLabel text="Excluded" />
                      {number(s.excluded.length)}
                    </td>
                    <td class="num">
                      <CellLabel text="Rules" />
                      {number(s.rules.length)}
                    </td>
                    <td>
                      <CellLabel text="Used by" />
                      {users.length === 0
                        ? 'no flag'
                        : users.map((k, i) => (
                            <span key={k}>
                              {i > 0 && ', '}
                              <a href={envHref(project, env, 'flags', k)}>
                                <bdi>{k}</bdi>
                              </a>
                            </span>
                          ))}
                    </td>
                    <td class="desc">
                      <CellLabel text="Description" />
                      {s.description && (
                        <LongText text={s.description} what={`the description of ${s.key}`} />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}

function NewSegmentForm({ project, env, taken }: { project: string; env: string; taken: string[] }) {
  const id = useId();
  const [key, setKey] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useAction();
  const problem = keyProblem(key, taken, 'Segment');
  const ready = keyUsable(key, problem) && overBy(description, DESCRIPTION_MAX_LENGTH) === 0;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!ready) return;
    await run(async () => {
      const body = { key, ...(description.trim() ? { description } : {}) };
      const made = await api<SegmentView>(envApi(project, env, 'segments'), { method: 'POST', body });
      navigate(envHref(project, env, 'segments', made.key));
    });
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>New segment</h3>
      <form class="stack" onSubmit={submit}>
        <KeyField id={NEW_KEY_ID} label="Segment key" value={key} problem={problem} onInput={setKey} />
        <div class="field">
          <label for={`${id}-d`}>Segment description</label>
          <textarea
            id={`${id}-d`}
            rows={2}
            value={description}
            aria-describedby={`${id}-c`}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <CharCount id={`${id}-c`} text={description} max={DESCRIPTION_MAX_LENGTH} />
        </div>
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !ready}>
            Create segment
          </button>
          <span class="hint">Its users and rules are added next.</span>
        </div>
      </form>
    </section>
  );
}
