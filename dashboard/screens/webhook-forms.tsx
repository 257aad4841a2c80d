/** The webhook forms: the event checkboxes, "New webhook", and the "Edit events" dialog. */
import { useId, useState } from 'preact/hooks';
import { WEBHOOK_EVENT_KINDS } from '../../src/core/limits.js';
import { api } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { ErrorText } from '../components/page-parts.js';
import type { WebhookEventKind } from '../types.js';
import { useAction } from '../use-action.js';

const ALL: WebhookEventKind[] = [...WEBHOOK_EVENT_KINDS];
/** A new webhook's events: its flags' and segments' (change requests' are there to tick). */
const FLAGS = ALL.filter((k) => !k.startsWith('change_'));

function EventsFieldset({
  value,
  onChange,
}: {
  value: WebhookEventKind[];
  onChange: (v: WebhookEventKind[]) => void;
}) {
  const id = useId();
  return (
    <fieldset>
      <legend>Events</legend>
      {ALL.map((kind) => (
        <span class="check" key={kind}>
          <input
            id={`${id}-${kind}`}
            type="checkbox"
            checked={value.includes(kind)}
            onChange={(e) =>
              onChange(ALL.filter((k) => (k === kind ? e.currentTarget.checked : value.includes(k))))
            }
          />
          <label for={`${id}-${kind}`}>{kind}</label>
        </span>
      ))}
      {value.length === 0 && <small class="problem">Choose at least one event.</small>}
    </fieldset>
  );
}

export interface CreatedWebhookAnswer {
  id: string;
  url: string;
  secret: string;
}

interface NewProps {
  path: string;
  /**
   * A dialog with the same event checkboxes is open: leave ours out meanwhile, so each label
   * names one control on the page (their state is kept).
   */
  covered: boolean;
  onCreated: (w: CreatedWebhookAnswer) => void;
}

export function NewWebhookForm({ path, covered, onCreated }: NewProps) {
  const id = useId();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventKind[]>(FLAGS);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    await run(async () => {
      const created = await api<CreatedWebhookAnswer>(path, {
        method: 'POST',
        body: { url: url.trim(), events },
      });
      setUrl('');
      setEvents(FLAGS);
      onCreated(created);
    });
  };
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>New webhook</h3>
      {/* The server checks the URL and says what is wrong; the browser's own bubble would not. */}
      <form onSubmit={submit} class="stack" noValidate>
        <div class="field">
          <label for={`${id}-u`}>Webhook URL</label>
          <input
            id={`${id}-u`}
            type="url"
            inputMode="url"
            autocomplete="off"
            placeholder="https://example.com/hooks/flagwire"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </div>
        {!covered && <EventsFieldset value={events} onChange={setEvents} />}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || url.trim() === '' || events.length === 0}>
            Create webhook
          </button>
        </div>
        <ErrorText message={error} />
      </form>
    </section>
  );
}

interface EditProps {
  url: string;
  initial: WebhookEventKind[];
  save: (events: WebhookEventKind[]) => Promise<unknown>;
  onClose: () => void;
}

export function EditEventsDialog({ url, initial, save, onClose }: EditProps) {
  const [events, setEvents] = useState(initial);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    await run(async () => {
      await save(events);
      onClose();
    });
  };
  return (
    <Dialog title={`Events sent to ${url}`} onClose={onClose}>
      <form onSubmit={submit}>
        <EventsFieldset value={events} onChange={setEvents} />
        <ErrorText message={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || events.length === 0}>
            Save events
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
