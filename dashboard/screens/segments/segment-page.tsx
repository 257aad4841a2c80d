/**
 * `#/env/P/E/segments/KEY`: one segment (`docs/protocol.md` §12.3): its description, the users
 * it includes and excludes by key (counted, searchable, pasted by the thousand), its rules (the
 * flag page's rule builder, without "is in segment"), the flags that use it; saved after a
 * review of what changes, against the version it was edited from (`If-Match`): a change made
 * elsewhere is merged field by field first (`MergeDialog`), never overwritten. Deleting a
 * segment in use is refused by the server, and the page names and links the flags.
 */
import { useId, useState } from 'preact/hooks';
import { DESCRIPTION_MAX_LENGTH } from '../../../src/core/limits.js';
import { ApiError, api, envApi, messageOf } from '../../api.js';
import { ChangedElsewhere } from '../../components/changed-elsewhere.js';
import { CharCount, overBy } from '../../components/char-count.js';
import { ChipsInput } from '../../components/chips-input.js';
import { useFeedback } from '../../components/feedback.js';
import { MergeDialog, NOTHING_LEFT } from '../../components/merge-dialog.js';
import { ErrorText } from '../../components/page-parts.js';
import { ReviewDialog } from '../../components/review-dialog.js';
import { RoleNote } from '../../components/role-note.js';
import { emptyClause, RulesEditor } from '../../components/rules-editor.js';
import { SaveBar } from '../../components/save-bar.js';
import { useEnvChanges } from '../../events.js';
import { number } from '../../format.js';
import { useResource } from '../../resource.js';
import { useCan } from '../../roles.js';
import { envHref } from '../../route.js';
import { changesBetween } from '../../targeting/diff.js';
import { inside, pathOf } from '../../targeting/draft.js';
import type { Flag, SegmentRule, SegmentView } from '../../types.js';
import { RequestDialog, useApprovals } from '../changes.js';
import { Section } from '../flag-page/flag-sections.js';
import { useLiveEdit } from '../live-edit.js';
import { DeleteSegment } from './delete-segment.js';
import { usersOf } from './segments-list.js';

interface Draft {
  description: string;
  included: string[];
  excluded: string[];
  rules: SegmentRule[];
}

const FIELDS = ['description', 'included', 'excluded', 'rules'] as const;

const draftOf = (s: SegmentView): Draft => ({
  description: s.description ?? '',
  included: s.included,
  excluded: s.excluded,
  rules: s.rules,
});

export function SegmentPage({
  project,
  env,
  segmentKey,
}: {
  project: string;
  env: string;
  segmentKey: string;
}) {
  const id = useId();
  const envId = `${project}/${env}`;
  const path = envApi(project, env, 'segments', segmentKey);
  const live = useLiveEdit<SegmentView, Draft>(path, envId, draftOf);
  const flagsPath = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  useEnvChanges(envId, flags.reload);
  const approvals = useApprovals(project, env);
  const [reviewing, setReviewing] = useState(false);
  const [merging, setMerging] = useState(false);
  const [refusal, setRefusal] = useState<{ path: string; reason: string }>();
  const saved = useFeedback();
  const editor = useCan(project, 'editor');
  const { saved: segment, draft, setDraft } = live;
  const back = (
    <p>
      <a href={envHref(project, env, 'segments')}>← All segments</a>
    </p>
  );
  if (!segment || !draft) {
    return (
      <>
        {back}
        <h2>
          Segment <bdi>{segmentKey}</bdi>
        </h2>
        {live.error ? <ErrorText message={live.error} /> : <p>Loading…</p>}
      </>
    );
  }

  const before = draftOf(segment);
  const changes = changesBetween(before as never, draft as never, FIELDS, true);
  const users = usersOf(flags.data ?? [], segment.key);
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) =>
    setDraft((d) => ({ ...d, [field]: value }));
  const reason = (prefix: string) => (refusal && inside(refusal.path, prefix) ? refusal.reason : undefined);

  const body: Record<string, unknown> = {};
  for (const c of changes)
    body[c.field] = c.field === 'description' ? draft.description || null : draft[c.field as keyof Draft];
  const save = async (): Promise<string | undefined> => {
    try {
      const done = await live.save(body);
      setReviewing(false);
      if (!done) {
        // Saved elsewhere since: nothing was written; merged first, then reviewed again.
        setMerging(true);
        return undefined;
      }
      setRefusal(undefined);
      saved.set({
        kind: 'saved',
        text: `Saved: ${changes.length} ${changes.length === 1 ? 'change' : 'changes'}.`,
      });
      return undefined;
    } catch (err) {
      const found = pathOf(messageOf(err));
      if (!(err instanceof ApiError && err.code === 'VALIDATION_ERROR' && found.path)) return messageOf(err);
      setRefusal(found);
      setReviewing(false);
      saved.set({
        kind: 'error',
        network: false,
        text: `Not saved: ${messageOf(err)} It is shown where it applies.`,
      });
      return undefined;
    }
  };

  return (
    <>
      <p class="page-links">
        <a href={envHref(project, env, 'segments')}>← All segments</a>
        <a href={envHref(project, env, 'history', `segment:${segment.key}`)}>History of this segment</a>
      </p>
      <h2>
        Segment <bdi>{segment.key}</bdi>
      </h2>
      {live.elsewhere && (
        <ChangedElsewhere
          what={`Segment ${segment.key}`}
          changes={changesBetween(before as never, draftOf(live.elsewhere.value) as never, FIELDS, true)}
          onMerge={() => setMerging(true)}
          onReload={live.reload}
          onKeep={() => live.merge(() => 'yours')}
        />
      )}
      <RoleNote allowed={editor} what="Changing and deleting this segment" />
      <div aria-hidden={reviewing ? 'true' : undefined}>
        {/* A viewer reads the segment as it is: every control of it is disabled. */}
        <fieldset class="read-only" disabled={!editor.ok} title={editor.reason}>
          <Section title="Description">
            <div class="field">
              <label for={`${id}-d`}>Segment description</label>
              <textarea
                id={`${id}-d`}
                rows={2}
                value={draft.description}
                aria-describedby={`${id}-c`}
                onInput={(e) => set('description', e.currentTarget.value)}
              />
              <CharCount id={`${id}-c`} text={draft.description} max={DESCRIPTION_MAX_LENGTH} />
            </div>
          </Section>
          <Section
            title={`Included users (${number(draft.included.length)})`}
            hint="Always in the segment, by user key."
          >
            <ChipsInput
              label="Included user keys"
              values={draft.included}
              noun={['key', 'keys']}
              onChange={(v) => set('included', v as string[])}
              error={reason('included')}
            />
          </Section>
          <Section
            title={`Excluded users (${number(draft.excluded.length)})`}
            hint="Never in the segment, even when a rule matches them (unless included)."
          >
            <ChipsInput
              label="Excluded user keys"
              values={draft.excluded}
              noun={['key', 'keys']}
              onChange={(v) => set('excluded', v as string[])}
              error={reason('excluded')}
            />
          </Section>
          <Section
            title="Rules"
            hint="Anyone else is in the segment when any rule matches them (all of its conditions hold)."
          >
            <RulesEditor<SegmentRule>
              rules={draft.rules}
              onChange={(rules) => set('rules', rules)}
              newRule={() => ({ clauses: [emptyClause()] })}
              keyOf={(_, i) => String(i)}
              context={{ project, env, segments: undefined }}
              error={refusal && inside(refusal.path, 'rules') ? refusal : undefined}
            />
          </Section>
          <Section title="Used by">
            {users.length === 0 ? (
              <p>No flag's rules name this segment.</p>
            ) : (
              <ul>
                {users.map((k) => (
                  <li key={k}>
                    <a href={envHref(project, env, 'flags', k)}>
                      <bdi>{k}</bdi>
                    </a>
                  </li>
                ))}
              </ul>
            )}
            <DeleteSegment
              project={project}
              env={env}
              segmentKey={segment.key}
              version={live.version}
              follow={(on) => live.hold(!on)}
            />
          </Section>
          <SaveBar
            {...(approvals > 0 && { label: 'Review and request change' })}
            changes={changes.length}
            dirty={live.dirty}
            blocked={overBy(draft.description, DESCRIPTION_MAX_LENGTH) > 0}
            onReview={() => (live.elsewhere ? setMerging(true) : setReviewing(true))}
            onDiscard={() => {
              live.discard();
              setRefusal(undefined);
            }}
            saved={saved}
          />
        </fieldset>
      </div>
      {merging && (
        <MergeDialog
          what={`Segment ${segment.key}`}
          live={live}
          toDraft={draftOf}
          fields={FIELDS}
          segment
          onClose={() => setMerging(false)}
          onMerged={(left) => {
            setMerging(false);
            setRefusal(undefined);
            if (left) setReviewing(true);
            else saved.set({ kind: 'saved', text: NOTHING_LEFT });
          }}
        />
      )}
      {reviewing && approvals > 0 && (
        <RequestDialog
          project={project}
          env={env}
          change={{
            kind: 'segment',
            key: segment.key,
            action: 'update',
            body,
            ...(live.version !== undefined && { baseVersion: live.version }),
          }}
          changes={changes}
          onClose={() => setReviewing(false)}
        />
      )}
      {reviewing && !approvals && (
        <ReviewDialog
          title={`Save changes to ${segment.key}?`}
          changes={changes}
          saveLabel="Save changes"
          onSave={save}
          onClose={() => setReviewing(false)}
        />
      )}
    </>
  );
}
