/**
 * `#/env/P/E/usage/stale`: the stale flags by the rules in force (`docs/protocol.md` §13.7), each
 * with why and what to do (a single value: the value to hard-code), marked permanent or snoozed
 * for 7, 30 or 90 days from here; and the flags kept off the list, whose mark is taken back here.
 * Every mark is the server's answer: the list is read again after it, and a refusal is shown in
 * the server's words with nothing changed on screen.
 */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import type { UsageMarkAnswer } from '../../../src/core/admin-wire.js';
import { api, envApi, messageOf } from '../../api.js';
import { CellLabel, ErrorText } from '../../components/page-parts.js';
import { dateTime, jsonish, number } from '../../format.js';
import { useResource } from '../../resource.js';
import { useCan } from '../../roles.js';
import { envHref } from '../../route.js';
import type { FlagUsage, StaleAnswer, StaleFlag } from '../../usage/api.js';
import { DAY } from '../../usage/axis.js';
import { CardTable } from '../../usage/card-table.js';
import { Age } from '../../usage/relative-time.js';
import { STALE } from '../../usage/usage-cells.js';
import { UsageHeader, UsageOff, usageLoad, useUsageRefresh } from './usage-common.js';

type Mark = { permanent: boolean } | { snoozedUntil: string | null };

export function StaleScreen({ project, env }: { project: string; env: string }) {
  const id = `${project}/${env}`;
  const stale = useResource(usageLoad<StaleAnswer>(project, env, 'stale'), `${id}/stale`);
  const flags = useResource(usageLoad<FlagUsage[]>(project, env, 'flags'), `${id}/flags`);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string }>();
  const reload = () => {
    stale.reload();
    flags.reload();
  };
  useUsageRefresh(project, env, reload);
  const editor = useCan(project, 'editor');

  const report = stale.data;
  const header = <UsageHeader project={project} env={env} stale />;
  if (report === null || flags.data === null)
    return (
      <>
        {header}
        <UsageOff />
      </>
    );
  const now = report ? Date.parse(report.at) : 0;

  /** PATCHes `key`'s mark; `done` words the answer, `what` the attempt for a refusal. */
  const mark = async (key: string, body: Mark, what: string, done: (answer: UsageMarkAnswer) => string) => {
    setBusy(true);
    try {
      const answer = await api<UsageMarkAnswer>(envApi(project, env, 'usage', 'flags', key), {
        method: 'PATCH',
        body,
      });
      setNote({ ok: true, text: done(answer) });
    } catch (error) {
      setNote({ ok: false, text: `Could not ${what}: ${messageOf(error)}` });
    } finally {
      setBusy(false);
      reload();
    }
  };
  /** A button named `text` and the key, that marks `key` (`done`: what is then said). */
  const button = (key: string, text: string, body: Mark, what: string, done: string) => (
    <button
      type="button"
      class="small"
      disabled={busy || !editor.ok}
      title={editor.reason}
      onClick={() => mark(key, body, what, () => done)}
    >
      {text}
      <span class="visually-hidden"> {key}</span>
    </button>
  );
  const marked = (flags.data ?? []).filter(
    (f) => f.permanent || (f.snoozedUntil !== null && Date.parse(f.snoozedUntil) > now),
  );

  return (
    <>
      {header}
      <ErrorText message={stale.error ?? flags.error} />
      <p role="status" class="ok">
        {note?.ok ? note.text : ''}
      </p>
      <ErrorText message={note?.ok === false ? note.text : undefined} />
      {!report ? (
        !stale.error && <p>Loading…</p>
      ) : (
        <>
          <section aria-labelledby="stale-list">
            <h3 id="stale-list">Stale flags ({number(report.flags.length)})</h3>
            <p class="hint">
              A flag is stale when it was not evaluated for more than {report.rules.unusedDays} days; when it
              was never evaluated and was created more than {report.rules.neverEvaluatedDays} days ago; or
              when, its settings unchanged for more than {report.rules.singleValueDays} days, it served one
              value to every evaluation of the last {report.rules.singleValueDays} days. As of{' '}
              {dateTime(report.at)}, by the server's clock.
            </p>
            {report.flags.length === 0 ? (
              <p class="empty">
                No stale flag: every flag is evaluated, serves more than one value, or is marked below.
              </p>
            ) : (
              <CardTable label="Stale flags" heads={['Flag', 'Why', 'Keep it']}>
                {report.flags.map((f) => (
                  <StaleRow key={f.key} flag={f} href={envHref(project, env, 'flags', f.key)}>
                    {button(
                      f.key,
                      'Mark permanent',
                      { permanent: true },
                      `mark ${f.key} permanent`,
                      `${f.key} marked permanent: it is never listed as stale.`,
                    )}
                    <Snooze
                      flag={f.key}
                      busy={busy || !editor.ok}
                      onSnooze={(days) =>
                        mark(
                          f.key,
                          { snoozedUntil: new Date(now + days * DAY).toISOString() },
                          `snooze ${f.key}`,
                          (a) => `${f.key} snoozed until ${dateTime(a.snoozedUntil)}.`,
                        )
                      }
                    />
                  </StaleRow>
                ))}
              </CardTable>
            )}
          </section>
          <section aria-labelledby="stale-marked">
            <h3 id="stale-marked">Marked permanent or snoozed ({number(marked.length)})</h3>
            <p class="hint">
              Not listed as stale: a permanent flag (a kill switch, an operational toggle) never, a snoozed
              one until its snooze ends.
            </p>
            {!flags.data ? (
              <p>Loading…</p>
            ) : marked.length === 0 ? (
              <p class="empty">No flag is marked. Mark one above when it is meant to stay.</p>
            ) : (
              <CardTable label="Marked flags" heads={['Flag', 'Mark', 'Take back']}>
                {marked.map((f) => (
                  <tr key={f.key}>
                    <td class="mono key">
                      <a href={envHref(project, env, 'flags', f.key)}>
                        <bdi>{f.key}</bdi>
                      </a>
                    </td>
                    <td>
                      <CellLabel text="Mark" />
                      {f.permanent ? 'Permanent' : 'Snoozed'}
                      {f.snoozedUntil !== null && Date.parse(f.snoozedUntil) > now && (
                        <>
                          {f.permanent ? ', and snoozed' : ''} until {dateTime(f.snoozedUntil)} (
                          <Age iso={f.snoozedUntil} now={now} />)
                        </>
                      )}
                    </td>
                    <td class="row-actions">
                      {f.permanent &&
                        button(
                          f.key,
                          'Unmark',
                          { permanent: false },
                          `unmark ${f.key}`,
                          `${f.key} is no longer permanent: listed again when stale.`,
                        )}
                      {f.snoozedUntil !== null &&
                        button(
                          f.key,
                          'Unsnooze',
                          { snoozedUntil: null },
                          `unsnooze ${f.key}`,
                          `${f.key} is no longer snoozed: listed again when stale.`,
                        )}
                    </td>
                  </tr>
                ))}
              </CardTable>
            )}
          </section>
        </>
      )}
    </>
  );
}

/** Why a flag is stale, as the list heads it: "One value only". */
function why({ reason }: StaleFlag): string {
  const words = STALE[reason];
  return `${words[0]!.toUpperCase()}${words.slice(1)}${reason === 'SINGLE_VALUE' ? ' only' : ''}`;
}

function StaleRow({ flag, href, children }: { flag: StaleFlag; href: string; children: ComponentChildren }) {
  return (
    <tr>
      <td class="mono key">
        <a href={href}>
          <bdi>{flag.key}</bdi>
        </a>
      </td>
      <td>
        <CellLabel text="Why" />
        <strong>{why(flag)}</strong>: {flag.message}
        {flag.reason === 'SINGLE_VALUE' && (
          <span class="hint">
            Value to hard-code where the flag is read: <code>{jsonish(flag.value)}</code> (variant{' '}
            <bdi>{flag.variant}</bdi>); then delete the flag.
          </span>
        )}
      </td>
      <td class="row-actions">
        <div class="cell-actions">{children}</div>
      </td>
    </tr>
  );
}

function Snooze({ flag, busy, onSnooze }: { flag: string; busy: boolean; onSnooze: (days: number) => void }) {
  const [days, setDays] = useState(30);
  const id = useId();
  return (
    <span class="snooze">
      <label class="visually-hidden" for={id}>
        Snooze {flag} for
      </label>
      <select id={id} value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
        {[7, 30, 90].map((d) => (
          <option key={d} value={d}>
            {d} days
          </option>
        ))}
      </select>
      <button type="button" class="small" disabled={busy} onClick={() => onSnooze(days)}>
        Snooze<span class="visually-hidden"> {flag}</span>
      </button>
    </span>
  );
}
