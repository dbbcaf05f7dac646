import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiBase } from '../src/api-base';

const origin = 'http://127.0.0.1:2113';

test('the API is found beside the folder the console is served from', () => {
  assert.equal(apiBase(origin, '/console/'), `${origin}/`);
  assert.equal(apiBase(origin, '/console/index.html'), `${origin}/`);
  // Behind a proxy that mounts the server under a path of its own.
  assert.equal(apiBase(origin, '/indelible/console/'), `${origin}/indelible/`);
  assert.equal(apiBase(origin, '/a/b/console/'), `${origin}/a/b/`);
  // Served elsewhere (the dev server's root): the API is at the root.
  assert.equal(apiBase(origin, '/'), `${origin}/`);
});
