import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeAge, metadataFromForm } from '../src/retention';

test('a max age reads in seconds and the largest whole unit', () => {
  assert.equal(describeAge(86400), '86400 s (1 day)');
  assert.equal(describeAge(7200), '7200 s (2 hours)');
  assert.equal(describeAge(90), '90 s');
  assert.equal(describeAge(60), '60 s (1 minute)');
});

test('the form makes the document PUT sends: empty fields unset, custom an object', () => {
  assert.deepEqual(metadataFromForm({ maxCount: '3', maxAge: '', truncateBefore: '0', custom: '' }), { metadata: { maxCount: 3, truncateBefore: 0 } });
  assert.deepEqual(metadataFromForm({ maxCount: '', maxAge: '60', truncateBefore: '', custom: '{"owner":"ops"}' }), {
    metadata: { maxAge: 60, custom: { owner: 'ops' } },
  });
  assert.deepEqual(metadataFromForm({ maxCount: '', maxAge: '', truncateBefore: '', custom: ' ' }), { metadata: {} });
});

test('the form names what is wrong and sends nothing', () => {
  assert.match(metadataFromForm({ maxCount: '0', maxAge: '', truncateBefore: '', custom: '' }).problem ?? '', /Max count/);
  assert.match(metadataFromForm({ maxCount: '1.5', maxAge: '', truncateBefore: '', custom: '' }).problem ?? '', /Max count/);
  assert.match(metadataFromForm({ maxCount: '', maxAge: '-1', truncateBefore: '', custom: '' }).problem ?? '', /Max age/);
  assert.match(metadataFromForm({ maxCount: '', maxAge: '', truncateBefore: '', custom: '[1]' }).problem ?? '', /must be a JSON object/);
  assert.match(metadataFromForm({ maxCount: '', maxAge: '', truncateBefore: '', custom: '{' }).problem ?? '', /not valid JSON/);
  assert.equal(metadataFromForm({ maxCount: '0', maxAge: '', truncateBefore: '', custom: '' }).metadata, undefined);
});
