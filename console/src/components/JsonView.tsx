// JSON pretty-printed with folding: each object and array is a
// <details>/<summary>, so the keyboard and screen readers fold it natively.

import type { ComponentChildren } from 'preact';

const kOpenDepth = 3; // deeper levels start folded: big payloads stay readable

export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <div class="json" aria-label={label} role="group">
      <Node value={value} depth={0} />
    </div>
  );
}

function Node({ value, depth, name }: { value: unknown; depth: number; name?: ComponentChildren }) {
  const prefix = name === undefined ? null : <span class="json-key">{name}: </span>;
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [String(i), v])
      : Object.entries(value as Record<string, unknown>);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) {
      return (
        <div>
          {prefix}
          {open + close}
        </div>
      );
    }
    const noun = Array.isArray(value) ? 'item' : 'key';
    const count = `${entries.length} ${noun}${entries.length === 1 ? '' : 's'}`;
    return (
      <details open={depth < kOpenDepth}>
        <summary>
          {prefix}
          {open} <span class="json-count">{count}</span>
        </summary>
        <div class="json-body">
          {entries.map(([k, v]) => (
            <Node key={k} value={v} depth={depth + 1} name={Array.isArray(value) ? undefined : JSON.stringify(k)} />
          ))}
        </div>
        <div>{close}</div>
      </details>
    );
  }
  return (
    <div>
      {prefix}
      <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value) ?? 'undefined'}</span>
    </div>
  );
}
