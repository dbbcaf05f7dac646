// Connection strings (src/connection-string.ts): parsed into the base URL
// and the client's settings, unknown or malformed settings refused by
// name, and clients made from them working against real servers (an API
// key, an https server with a private CA given as a file).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseConnectionString } from '../src/connection-string.js';
import { Client, InvalidError, UnauthorizedError } from './subject.js';
import { collect, Server, startAuthServer, startTlsServer, unique } from './server.js';

test('indelible:// strings: http unless tls=true, port 2113 by default, settings parsed', () => {
  assert.deepEqual(parseConnectionString('indelible://localhost'), { url: 'http://localhost:2113', options: {} });
  assert.deepEqual(parseConnectionString('indelible://events.internal:8443/api?tls=true&apiKey=idl_abc&ca=/etc/ca.pem&timeoutMs=5000&retries=1&maxConnections=8&transport=fetch'), {
    url: 'https://events.internal:8443/api',
    options: { apiKey: 'idl_abc', timeoutMs: 5000, retries: 1, maxConnections: 8, transport: 'fetch' },
    caFile: '/etc/ca.pem',
  });
  assert.deepEqual(parseConnectionString('indelible://[::1]:9000?tls=false'), { url: 'http://[::1]:9000', options: {} });
});

test('http(s) URLs: the scheme and port stay, the query is settings', () => {
  assert.deepEqual(parseConnectionString('http://127.0.0.1:2113'), { url: 'http://127.0.0.1:2113', options: {} });
  assert.deepEqual(parseConnectionString('https://es.example.com/v1/?apiKey=idl_x%2By'), { url: 'https://es.example.com/v1/', options: { apiKey: 'idl_x+y' } });
});

test('bad strings and settings are InvalidErrors naming what is wrong', () => {
  const cases: Array<[string, RegExp]> = [
    ['not a url', /not a URL/],
    ['ftp://host', /must be indelible, http or https/],
    ['indelible://host?apikey=x', /'apikey' is unknown \(known: apiKey/],
    ['indelible://host?tls=yes', /'tls' must be true or false/],
    ['https://host?tls=true', /'tls' belongs to indelible:\/\//],
    ['indelible://host?retries=-1', /'retries' must be a whole number/],
    ['indelible://host?timeoutMs=1.5', /'timeoutMs' must be a whole number/],
    ['indelible://host?transport=xhr', /'transport' must be node or fetch/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => new Client(text), (err: unknown) => err instanceof InvalidError && message.test(err.message), text);
  }
  // A CA file needs the node transport, said at once.
  assert.throws(() => new Client('indelible://host?ca=/etc/ca.pem', { transport: 'fetch' }), InvalidError);
});

describe('clients made from connection strings', () => {
  test('an API key in the string; options given beside it win', async () => {
    const auth = await startAuthServer();
    try {
      const port = new URL(auth.server.url).port;
      const key = readFileSync(path.join(auth.server.data, 'admin.key'), 'utf8').trim();
      const client = new Client(`indelible://127.0.0.1:${port}?apiKey=${encodeURIComponent(key)}&retries=0`);
      const stream = unique('cs-');
      assert.equal((await client.append(stream, { type: 'Opened' }, { expected: 'no_stream' })).lastVersion, 0);
      assert.deepEqual((await collect(client.readStream(stream))).map((e) => e.type), ['Opened']);
      const overridden = new Client(`http://127.0.0.1:${port}?apiKey=${encodeURIComponent(key)}`, { apiKey: 'idl_wrong' });
      await assert.rejects(overridden.head(stream), UnauthorizedError);
      client.close();
      overridden.close();
    } finally {
      await auth.close();
    }
  });

  describe('https with a private CA given as a file (ca=)', () => {
    let server: Server;
    let dir: string;
    before(async () => {
      ({ server, dir } = await startTlsServer());
    });
    after(async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('the CA file is read and trusted (node transport)', async () => {
      const port = new URL(server.url).port;
      const ca = encodeURIComponent(path.join(dir, 'ca.pem'));
      // The transport as an option too: the suite's fetch run forces fetch unless one is given.
      const client = new Client(`indelible://127.0.0.1:${port}?tls=true&ca=${ca}&transport=node`, { transport: 'node' });
      const stream = unique('cs-tls-');
      assert.equal((await client.append(stream, { type: 'Opened' })).lastVersion, 0);
      client.close();
      // A file that is not there: an InvalidError naming it, at the first request.
      const missing = new Client(`indelible://127.0.0.1:${port}?tls=true&ca=/nonexistent/ca.pem`, { transport: 'node' });
      await assert.rejects(missing.head(stream), (err: unknown) => err instanceof InvalidError && /\/nonexistent\/ca\.pem/.test(err.message));
      missing.close();
    });
  });
});
