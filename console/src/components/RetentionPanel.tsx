// A stream's metadata (docs/HTTP.md, "Stream metadata"): its retention and
// custom keys, shown to every reader, edited by whoever may write it (the
// `delete` right). A save sends the metadata's own version as If-Match (or
// If-None-Match: * when none was written), so two editors cannot silently
// overwrite each other: the second gets the 409 and reloads.

import { useState } from 'preact/hooks';
import type { IndelibleError, StoredStreamMetadata } from '@indelible/client';
import { client, failure } from '../client';
import { useLoad } from '../hooks';
import { describeAge, metadataFromForm } from '../retention';
import { ErrorAlert } from './ErrorAlert';
import { JsonView } from './JsonView';

export function RetentionPanel({ stream, canEdit, onSaved }: { stream: string; canEdit: boolean; onSaved: () => void }) {
  // The metadata and the first version it leaves readable, read together:
  // after a save, the two always show the same moment.
  const { data: loaded, error, reload } = useLoad(
    async (signal) => {
      const [metadata, head] = await Promise.all([client.readStreamMetadata(stream, { signal }), client.head(stream, { signal })]);
      return { metadata, firstVersion: head.firstVersion };
    },
    stream,
  );
  const data = loaded?.metadata;
  const [editing, setEditing] = useState(false);

  const m = data?.metadata ?? {};
  const none = m.maxAge == null && m.maxCount == null && m.truncateBefore == null;
  return (
    <section aria-labelledby="retention-heading">
      <h2 id="retention-heading">Retention</h2>
      <ErrorAlert error={error} />
      {data && (
        <>
          {none ? (
            <p>None: every event of this stream is kept.</p>
          ) : (
            <dl class="facts">
              {m.maxCount != null && (
                <>
                  <dt>Max count</dt>
                  <dd>{m.maxCount}</dd>
                </>
              )}
              {m.maxAge != null && (
                <>
                  <dt>Max age</dt>
                  <dd>{describeAge(m.maxAge)}</dd>
                </>
              )}
              {m.truncateBefore != null && (
                <>
                  <dt>Truncate before</dt>
                  <dd>{m.truncateBefore}</dd>
                </>
              )}
              <dt>First readable version</dt>
              <dd>{loaded?.firstVersion}</dd>
            </dl>
          )}
          {!none && <p class="note">Older events are hidden from every read now, and removed for good by the next scavenge.</p>}
          {m.custom && Object.keys(m.custom).length > 0 && (
            <>
              <h3>Custom metadata</h3>
              <JsonView value={m.custom} label="Custom metadata" />
            </>
          )}
          {canEdit && !editing && (
            <div class="buttons">
              <button type="button" onClick={() => setEditing(true)}>
                Edit retention
              </button>
            </div>
          )}
          {canEdit && editing && (
            <RetentionForm
              stream={stream}
              current={data}
              onCancel={() => setEditing(false)}
              onSaved={() => {
                setEditing(false);
                reload();
                onSaved();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}

function RetentionForm({ stream, current, onCancel, onSaved }: { stream: string; current: StoredStreamMetadata; onCancel: () => void; onSaved: () => void }) {
  const m = current.metadata;
  const [maxCount, setMaxCount] = useState(m.maxCount != null ? String(m.maxCount) : '');
  const [maxAge, setMaxAge] = useState(m.maxAge != null ? String(m.maxAge) : '');
  const [truncateBefore, setTruncateBefore] = useState(m.truncateBefore != null ? String(m.truncateBefore) : '');
  const [custom, setCustom] = useState(m.custom ? JSON.stringify(m.custom, null, 2) : '');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<IndelibleError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const parsed = metadataFromForm({ maxCount, maxAge, truncateBefore, custom });
    setProblem(parsed.problem ?? null);
    if (!parsed.metadata) return;
    setBusy(true);
    try {
      // The metadata's own version (none written: none expected), so two editors cannot overwrite each other.
      await client.writeStreamMetadata(stream, parsed.metadata, { expected: current.version === null ? 'no_stream' : current.version });
      onSaved();
    } catch (e) {
      setError(failure(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="form" onSubmit={submit} aria-label="Edit retention">
      <label for="retention-max-count">Max count</label>
      <input id="retention-max-count" type="number" min={1} step={1} value={maxCount} onInput={(e) => setMaxCount(e.currentTarget.value)} />
      <label for="retention-max-age">Max age (seconds)</label>
      <input id="retention-max-age" type="number" min={1} step={1} value={maxAge} onInput={(e) => setMaxAge(e.currentTarget.value)} />
      <label for="retention-truncate-before">Truncate before</label>
      <input id="retention-truncate-before" type="number" min={0} step={1} value={truncateBefore} onInput={(e) => setTruncateBefore(e.currentTarget.value)} />
      <label for="retention-custom">Custom (JSON)</label>
      <textarea id="retention-custom" rows={4} class="mono" value={custom} onInput={(e) => setCustom(e.currentTarget.value)} />
      <p class="note">Empty fields are unset. Saving replaces the whole document; events it hides disappear from every read at once.</p>
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          Save retention
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorAlert error={problem} />
      <ErrorAlert error={error} />
    </form>
  );
}
