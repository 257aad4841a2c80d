/** A copy-to-clipboard button with its outcome announced next to it ("Copied" then goes away). */
import { useEffect, useState } from 'preact/hooks';
import { SAVED_MS } from './feedback.js';

export function CopyButton({ label, text }: { label: string; text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => setState('idle'), SAVED_MS);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      // Missing outside a secure context (plain http to a remote host): throws, handled below.
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span aria-live="polite" class={state === 'failed' ? 'problem' : 'ok'}>
        {state === 'copied'
          ? 'Copied'
          : state === 'failed'
            ? 'Could not copy: select the text and copy it.'
            : ''}
      </span>
    </span>
  );
}
