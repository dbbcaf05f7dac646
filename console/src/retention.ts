// Stream metadata as the console shows and edits it (docs/HTTP.md, "Stream
// metadata"): pure, unit-tested (test/retention.test.ts).

import type { StreamMetadata as Metadata } from '@indelible/client';

/** "86400 s (1 day)": seconds and the largest whole unit they make. */
export function describeAge(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${seconds} s (${n} ${name}${n === 1 ? '' : 's'})`;
    }
  }
  return `${seconds} s`;
}

/** The form's fields as the document PUT sends, or what is wrong with them. */
export function metadataFromForm(fields: { maxCount: string; maxAge: string; truncateBefore: string; custom: string }): { metadata?: Metadata; problem?: string } {
  const metadata: Metadata = {};
  const whole = (text: string, label: string, min: number): number | undefined | string => {
    if (text.trim() === '') return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) return `${label} must be a whole number from ${min}, or empty for none.`;
    return n;
  };
  for (const [key, label, min] of [
    ['maxCount', 'Max count', 1],
    ['maxAge', 'Max age (seconds)', 1],
    ['truncateBefore', 'Truncate before', 0],
  ] as const) {
    const value = whole(fields[key], label, min);
    if (typeof value === 'string') return { problem: value };
    if (value !== undefined) metadata[key] = value;
  }
  if (fields.custom.trim() !== '') {
    let custom: unknown;
    try {
      custom = JSON.parse(fields.custom);
    } catch (e) {
      return { problem: `Custom (JSON) is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (typeof custom !== 'object' || custom === null || Array.isArray(custom)) return { problem: 'Custom (JSON) must be a JSON object.' };
    metadata.custom = custom as Record<string, unknown>;
  }
  return { metadata };
}
