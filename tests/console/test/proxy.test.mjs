// Behind a reverse proxy that mounts the server under a path of its own
// (/indelible/ here, forwarding with the prefix cut off and the Host kept,
// as nginx's `proxy_pass http://backend/;` does): the root's redirect leads
// to the console under the prefix, and the console's reads, writes and live
// tail all go through the prefix, with nothing rewritten.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, openPage, waitForHeading } from '../lib/browser.mjs';

const kPrefix = '/indelible';
let server, proxy, browser;
const forwarded = [];

// A minimal prefix-stripping proxy: streams both ways (an event stream's
// body never ends), keeps every header, 404 outside the prefix.
function startProxy(target) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    if (!req.url.startsWith(`${kPrefix}/`)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('outside the proxy\'s prefix');
      return;
    }
    const path = req.url.slice(kPrefix.length);
    forwarded.push(`${req.method} ${path}`);
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    base: `http://127.0.0.1:${server.address().port}`,
    stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  })));
}

before(async () => {
  server = await startServer();
  await api(server, 'POST', '/streams/order-1', { json: [{ type: 'Order.Placed', data: { sku: 'A-1' } }, { type: 'Order.Paid', data: { amount: 5 } }] });
  proxy = await startProxy(server.base);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await server?.stop();
});

test('the root redirect stays under the prefix', async () => {
  for (const path of ['/', '/console']) {
    const res = await fetch(`${proxy.base}${kPrefix}${path}`, { redirect: 'manual' });
    await res.arrayBuffer();
    assert.equal(res.status, 302, path);
    assert.equal(new URL(res.headers.get('location'), `${proxy.base}${kPrefix}${path}`).pathname, `${kPrefix}/console/`, path);
  }
});

test('a stream page reads through the prefix', async () => {
  const page = await openPage(browser, `${proxy.base}${kPrefix}`, '/streams/order-1');
  await waitForHeading(page, 'order-1');
  await page.getByRole('cell', { name: 'Order.Paid', exact: true }).first().waitFor();
  assert.ok(forwarded.some((line) => line.startsWith('GET /streams/order-1')), `the API was called through the proxy: ${forwarded.join(', ')}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the live tail subscribes through the prefix and shows an appended event', async () => {
  const page = await openPage(browser, `${proxy.base}${kPrefix}`, '/tail');
  await waitForHeading(page, 'Live tail');
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  const table = page.getByRole('table', { name: 'Live events' });
  // Appended until one shows: the subscription may open just after the first.
  for (let i = 0; ; i++) {
    await api(server, 'POST', `/streams/proxied-${i}`, { json: { type: 'Through.Proxy', data: { i } } });
    try {
      await table.getByRole('cell', { name: `proxied-${i}`, exact: true }).waitFor({ timeout: 2000 });
      break;
    } catch (e) {
      if (i >= 4) throw e;
    }
  }
  assert.ok(forwarded.some((line) => line.startsWith('GET /subscribe/all')), 'the subscription went through the proxy');
  assert.deepEqual(page.errors, []);
  await page.close();
});
