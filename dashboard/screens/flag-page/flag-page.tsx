/**
 * `#/env/P/E/flags/KEY`: one flag's targeting, edited the way it is evaluated
 * (`docs/protocol.md` §12.4): on/off, variants and the off variant, prerequisites, individual
 * targets, ordered rules, the default rule; "who gets what" for any user, saved and edited side
 * by side. Nothing is sent until "Review and save" has shown, in sentences, what would change
 * against the flag as the page last heard of it; a save names that version (`If-Match`), so a
 * change made elsewhere meanwhile is never overwritten silently: announced (`useLiveEdit`) or
 * refused (`412`), it is merged field by field first (`MergeDialog`).
 * In an environment whose changes need approval (`docs/protocol.md` §10.7) the same review
 * requests the change instead (`../changes.tsx`), written against that version (`baseVersion`).
 * Below, its usage: what SDKs evaluated, over time (`./usage-section.tsx`).
 */
import { useState } from 'preact/hooks';
import { ApiError, api, envApi, messageOf } from '../../api.js';
import { ChangedElsewhere } from '../../components/changed-elsewhere.js';
import { useFeedback } from '../../components/feedback.js';
import { MergeDialog, NOTHING_LEFT } from '../../components/merge-dialog.js';
import { ErrorText } from '../../components/page-parts.js';
import { ReviewDialog } from '../../components/review-dialog.js';
import { RoleNote } from '../../components/role-note.js';
import { SaveBar } from '../../components/save-bar.js';
import { useEnvChanges } from '../../events.js';
import { useResource } from '../../resource.js';
import { useCan } from '../../roles.js';
import { envHref, navigate } from '../../route.js';
import { changesBetween } from '../../targeting/diff.js';
import { bodyOf, DRAFT_FIELDS, type Draft, draftOf, patchOf, pathOf } from '../../targeting/draft.js';
import type { ChangeRequest, Flag } from '../../types.js';
import { RequestDialog, useApprovals } from '../changes.js';
import { useLiveEdit } from '../live-edit.js';
import { FlagSections } from './flag-sections.js';
import { UsageSection } from './usage-section.js';
import { WhoGetsWhat } from './who-gets-what.js';

interface Props {
  project: string;
  env: string;
  flagKey: string;
}

type Segment = { key: string };

export function FlagPage({ project, env, flagKey }: Props) {
  const envId = `${project}/${env}`;
  const live = useLiveEdit<Flag, Draft>(envApi(project, env, 'flags', flagKey), envId, draftOf);
  const flagsPath = envApi(project, env, 'flags');
  const flags = useResource(() => api<Flag[]>(flagsPath), flagsPath);
  const segmentsPath = envApi(project, env, 'segments');
  const segments = useResource(() => api<Segment[]>(segmentsPath), segmentsPath);
  useEnvChanges(envId, () => {
    flags.reload();
    segments.reload();
  });
  const [reviewing, setReviewing] = useState(false);
  const [merging, setMerging] = useState(false);
  const [refusal, setRefusal] = useState<{ path: string; reason: string }>();
  const [match, setMatch] = useState<{ rule: number | undefined; user: string }>();
  const saved = useFeedback();
  const editor = useCan(project, 'editor');
  const approvals = useApprovals(project, env);
  const { saved: flag, draft } = live;

  if (!flag || !draft) {
    return (
      <>
        <p>
          <a href={envHref(project, env, 'flags')}>← All flags</a>
        </p>
        <h2>
          Flag <bdi>{flagKey}</bdi>
        </h2>
        {live.error ? <ErrorText message={live.error} /> : <p>Loading…</p>}
      </>
    );
  }

  const savedDraft = draftOf(flag);
  const fields = DRAFT_FIELDS as unknown as string[];
  const changes = changesBetween(savedDraft as never, draft as never, fields);
  const save = async (): Promise<string | undefined> => {
    try {
      const done = await live.save(patchOf(savedDraft, draft));
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
      if (err instanceof ApiError && err.code === 'VALIDATION_ERROR' && found.path) {
        // Shown where it points: the dialog closes so the control and its message are in reach.
        setRefusal(found);
        setReviewing(false);
        saved.set({
          kind: 'error',
          network: false,
          text: `Not saved: ${messageOf(err)} It is shown where it applies.`,
        });
        return undefined;
      }
      return messageOf(err);
    }
  };
  const marks = new Map<number, string>();
  if (match?.rule !== undefined)
    marks.set(match.rule, `Who gets what: ${match.user} gets this rule (with your changes)`);

  return (
    <>
      <p class="page-links">
        <a href={envHref(project, env, 'flags')}>← All flags</a>
        <a href={envHref(project, env, 'history', flag.key)}>History of this flag</a>
      </p>
      <h2>
        Flag <bdi>{flag.key}</bdi> <span class="badge">{flag.type}</span>
      </h2>
      {live.elsewhere && (
        <ChangedElsewhere
          what={`Flag ${flag.key}`}
          changes={changesBetween(savedDraft as never, draftOf(live.elsewhere.value) as never, fields)}
          onMerge={() => setMerging(true)}
          onReload={() => {
            live.reload();
            setRefusal(undefined);
          }}
          onKeep={() => live.merge(() => 'yours')}
        />
      )}
      <RoleNote allowed={editor} what="Changing this flag" />
      <div aria-hidden={reviewing ? 'true' : undefined}>
        {/* A viewer reads the targeting as it is: every control of it is disabled. */}
        <fieldset class="read-only" disabled={!editor.ok} title={editor.reason}>
          <FlagSections
            project={project}
            env={env}
            flag={flag}
            draft={draft}
            setDraft={live.setDraft}
            flags={flags.data ?? []}
            segments={(segments.data ?? []).map((s) => s.key)}
            refusal={refusal}
            marks={marks}
          />
        </fieldset>
        <WhoGetsWhat
          project={project}
          env={env}
          flagKey={flag.key}
          savedJson={JSON.stringify(flag)}
          savedRules={flag.rules ?? []}
          draftRules={draft.rules}
          draft={bodyOf(draft)}
          onMatch={setMatch}
        />
        <UsageSection project={project} env={env} flag={flag} />
        <SaveBar
          {...(approvals > 0 && { label: 'Review and request change' })}
          changes={changes.length}
          dirty={live.dirty}
          onReview={() => (live.elsewhere ? setMerging(true) : setReviewing(true))}
          onDiscard={() => {
            live.discard();
            setRefusal(undefined);
          }}
          saved={saved}
        />
      </div>
      {merging && (
        <MergeDialog
          what={`Flag ${flag.key}`}
          live={live}
          toDraft={draftOf}
          fields={fields}
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
            kind: 'flag',
            key: flag.key,
            action: 'update',
            body: { ...patchOf(savedDraft, draft) },
            ...(live.version !== undefined && { baseVersion: live.version }),
          }}
          changes={changes}
          onClose={() => setReviewing(false)}
        />
      )}
      {reviewing && !approvals && (
        <ReviewDialog
          title={`Save changes to ${flag.key}?`}
          changes={changes}
          saveLabel="Save changes"
          onSave={save}
          onClose={() => setReviewing(false)}
        />
      )}
    </>
  );
}
