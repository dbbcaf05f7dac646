// Event ids and byte data without Node's crypto module or Buffer
// (src/bytes.ts): checked here against Node's own, which the client no
// longer uses.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromBase64, randomUUID, toBase64, uuidFromBytes } from '../src/bytes.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('base64 both ways, as Buffer does it: every byte value, every padding, and more than one slice', () => {
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  const big = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 7919) & 0xff);
  const cases = [new Uint8Array(0), every, big, ...[1, 2, 3, 4, 5].map((n) => every.subarray(250, 250 + n))];
  for (const bytes of cases) {
    const text = toBase64(bytes);
    assert.equal(text, Buffer.from(bytes).toString('base64'), `${bytes.length} bytes`);
    assert.deepEqual(fromBase64(text), new Uint8Array(bytes));
  }
  // A view into a larger buffer: only its own bytes go out.
  const view = new Uint8Array(every.buffer, 10, 3);
  assert.equal(toBase64(view), Buffer.from([10, 11, 12]).toString('base64'));
});

test('event ids: v4 UUIDs, from crypto.randomUUID or, without it (plain-http pages), from random bytes', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => randomUUID()));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, UUID_V4);
  assert.match(uuidFromBytes(new Uint8Array(16).fill(0xff)), UUID_V4);
  assert.match(uuidFromBytes(new Uint8Array(16)), UUID_V4);
  assert.equal(uuidFromBytes(Uint8Array.from({ length: 16 }, (_, i) => i)), '00010203-0405-4607-8809-0a0b0c0d0e0f');
});
