// Append one event to a stream, with an optional expected version.

import { useState } from 'preact/hooks';
import { ApiError, postJson, seg } from '../api';
import { maySomewhere } from '../auth';
import { ErrorAlert } from '../components/ErrorAlert';
import { asApiError } from '../hooks';
import { href } from '../router';
import { useWho } from '../session';
import type { AppendResult } from '../types';

type Expected = 'any' | 'no_stream' | 'exactly';

/** The header that carries the expectation (docs/HTTP.md, "Versions in headers"). */
function expectationHeaders(expected: Expected, version: string): Record<string, string> {
  if (expected === 'no_stream') return { 'If-None-Match': '*' };
  if (expected === 'exactly') return { 'If-Match': `"${version}"` };
  return {};
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
  const [error, setError] = useState<ApiError | null>(null);
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
    setProblem(found);
    if (found) return;
    const event: Record<string, unknown> = { type, data: parsedData.value };
    if (parsedMetadata.value !== undefined) event.metadata = parsedMetadata.value;
    setBusy(true);
    try {
      setResult(await postJson<AppendResult>(`/streams/${seg(stream)}`, event, expectationHeaders(expected, version)));
    } catch (failure) {
      setError(asApiError(failure));
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
