import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiUrl } from '../src/api';

test('API paths are resolved beside the folder the console is served from', () => {
  assert.equal(apiUrl('/streams/a', '/console/'), '/streams/a');
  assert.equal(apiUrl('/metrics', '/console/index.html'), '/metrics');
  // Behind a proxy that mounts the server under a path of its own.
  assert.equal(apiUrl('/streams/a', '/indelible/console/'), '/indelible/streams/a');
  assert.equal(apiUrl('/subscribe/all?from=end', '/a/b/console/'), '/a/b/subscribe/all?from=end');
  // Served elsewhere (the dev server's root): the API is at the root.
  assert.equal(apiUrl('/health', '/'), '/health');
});
