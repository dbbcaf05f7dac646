// Append one event to a stream, with an optional expected version.

import { useState } from 'preact/hooks';
import type { AppendResult, EventInput, IndelibleError, Expected as ClientExpected } from '@indelible/client';
import { client, failure } from '../client';
import { maySomewhere } from '../auth';
import { ErrorAlert } from '../components/ErrorAlert';
import { href } from '../router';
import { useWho } from '../session';

type Expected = 'any' | 'no_stream' | 'exactly';

/** The client's expectation for the form's choice. */
function expectation(expected: Expected, version: string): ClientExpected {
  if (expected === 'exactly') return Number(version);
  return expected;
}

/** Parses a JSON field, or says which field is wrong (nothing is sent then). */
function parseField(text: string, field: string, optional: boolean): { value?: unknown; problem?: string } {
  if (optional && text.trim() === '') return {};
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { problem: `${field} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function AppendPage({ stream: initialStream }: { stream: string }) {
  const who = useWho();
  const [stream, setStream] = useState(initialStream);
  const [type, setType] = useState('');
  const [data, setData] = useState('{}');
  const [metadata, setMetadata] = useState('');
  const [expected, setExpected] = useState<Expected>('any');
  const [version, setVersion] = useState('0');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<IndelibleError | null>(null);
  const [result, setResult] = useState<AppendResult | null>(null);
  const [busy, setBusy] = useState(false);

  if (!maySomewhere(who, 'write')) {
    return (
      <>
        <h1>Append</h1>
        <p>You may not write to any stream.</p>
      </>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setResult(null);
    setError(null);
    const parsedData = parseField(data, 'Data (JSON)', false);
    const parsedMetadata = parseField(metadata, 'Metadata (JSON)', true);
    const found = parsedData.problem ?? parsedMetadata.problem ?? null;
    if (!found && parsedMetadata.value !== undefined && (typeof parsedMetadata.value !== 'object' || parsedMetadata.value === null || Array.isArray(parsedMetadata.value))) {
      setProblem('Metadata (JSON) must be a JSON object.');
      return;
    }
    const badVersion = expected === 'exactly' && !/^\d+$/.test(version.trim()) ? 'Expected version must be a whole number (0 for a stream with one event).' : null;
    setProblem(found ?? badVersion);
    if (found || badVersion) return;
    const event: EventInput = { type, data: parsedData.value };
    if (parsedMetadata.value !== undefined) event.metadata = parsedMetadata.value as Record<string, unknown>;
    setBusy(true);
    try {
      setResult(await client.append(stream, event, { expected: expectation(expected, version.trim()) }));
    } catch (e) {
      setError(failure(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Append</h1>
      <form class="form" onSubmit={submit}>
        <label for="append-stream">Stream</label>
        <input id="append-stream" required value={stream} onInput={(e) => setStream(e.currentTarget.value)} />
        <label for="append-type">Type</label>
        <input id="append-type" required value={type} onInput={(e) => setType(e.currentTarget.value)} />
        <label for="append-data">Data (JSON)</label>
        <textarea id="append-data" rows={8} class="mono" value={data} onInput={(e) => setData(e.currentTarget.value)} />
        <label for="append-metadata">Metadata (JSON)</label>
        <textarea id="append-metadata" rows={4} class="mono" value={metadata} onInput={(e) => setMetadata(e.currentTarget.value)} />
        <label for="append-expected">Expected version</label>
        <select id="append-expected" value={expected} onChange={(e) => setExpected(e.currentTarget.value as Expected)}>
          <option value="any">Any</option>
          <option value="no_stream">No stream</option>
          <option value="exactly">Exactly</option>
        </select>
        {expected === 'exactly' && (
          <>
            <label for="append-version">Version</label>
            <input id="append-version" type="number" min={0} step={1} required value={version} onInput={(e) => setVersion(e.currentTarget.value)} />
          </>
        )}
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            Append
          </button>
        </div>
      </form>
      <ErrorAlert error={problem} />
      <ErrorAlert error={error} />
      {result && (
        <p role="status" class="ok">
          Appended <a href={href(['streams', result.stream])}>{result.stream}</a> version {result.lastVersion} at position {result.position}
        </p>
      )}
    </>
  );
}
