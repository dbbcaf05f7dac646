import assert from 'node:assert/strict';
import { test } from 'node:test';
import { preview, relativeTime } from '../src/format';

const now = Date.UTC(2026, 10, 29, 12, 0, 0);

test('a time reads relative to now, the date itself past 30 days', () => {
  assert.equal(relativeTime(now - 2000, now), 'just now');
  assert.equal(relativeTime(now - 42_000, now), '42 s ago');
  assert.equal(relativeTime(now - 3 * 60_000 - 10_000, now), '3 min ago');
  assert.equal(relativeTime(now - 5 * 3_600_000, now), '5 h ago');
  assert.equal(relativeTime(now - 86_400_000, now), '1 day ago');
  assert.equal(relativeTime(now - 2 * 86_400_000, now), '2 days ago');
  assert.equal(relativeTime(now - 40 * 86_400_000, now), '2026-10-20');
  // Another machine's clock ahead of this one.
  assert.equal(relativeTime(now + 30_000, now), 'in 30 s');
});

test('a data preview is one short line', () => {
  assert.equal(preview({ amount: 5 }), '{"amount":5}');
  assert.equal(preview('x'.repeat(200), 10), `"${'x'.repeat(8)}…`);
  assert.equal(preview(new Uint8Array(3)), '3 bytes');
  assert.equal(preview(null), 'null');
  assert.equal(preview(undefined), '');
});
