// How numbers and times read on every page.

export function isoTime(unixMs: number): string {
  return new Date(unixMs).toISOString();
}

export function number(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Bytes as base64, as the API sends binary data. */
export function base64(bytes: Uint8Array): string {
  let text = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * How long ago `unixMs` was, from `nowMs`: "just now", "42 s ago", "3 min
 * ago", "5 h ago", "2 days ago"; past 30 days the date itself. A time ahead
 * of this clock (another machine's) reads "in 3 s".
 */
export function relativeTime(unixMs: number, nowMs: number): string {
  const seconds = Math.round((nowMs - unixMs) / 1000);
  const ahead = seconds < 0;
  const s = Math.abs(seconds);
  if (s < 5) return 'just now';
  let amount: string;
  if (s < 60) amount = `${s} s`;
  else if (s < 3600) amount = `${Math.floor(s / 60)} min`;
  else if (s < 86400) amount = `${Math.floor(s / 3600)} h`;
  else if (s < 30 * 86400) {
    const days = Math.floor(s / 86400);
    amount = `${days} day${days === 1 ? '' : 's'}`;
  } else return isoTime(unixMs).slice(0, 10);
  return ahead ? `in ${amount}` : `${amount} ago`;
}

/** A data value cut to one short line for a table cell: JSON, or the size of binary data. */
export function preview(data: unknown, maxChars = 80): string {
  if (data instanceof Uint8Array) return `${data.length} bytes`;
  const text = JSON.stringify(data) ?? '';
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
