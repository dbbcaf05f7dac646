// How numbers and times read on every page.

export function isoTime(unixMs: number): string {
  return new Date(unixMs).toISOString();
}

export function number(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}
