// Every page of the console on a small seeded store: it renders its <h1>
// with no console error or uncaught exception (1), axe-core finds no serious
// or critical violation in light and dark, at 1280x800 and 375x812 (6), and a
// screenshot of each is written (7). Also the bundle's size as served.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, seriousViolations, screenshot, recordBudget, desktop, phone } from '../lib/browser.mjs';

let server, app, browser;
const seeded = {};

before(async () => {
  server = await startServer();
  // Two events of one order, the second caused by the first (metadata links).
  const first = await api(server, 'POST', '/streams/order-1', { json: { type: 'Order.Placed', data: { items: [{ sku: 'A-1', qty: 2 }, { sku: 'B-7', qty: 1 }], customer: { id: 7, name: 'Ann' } } } });
  const firstEvent = (await api(server, 'GET', '/streams/order-1?from=0&limit=1')).body.events[0];
  seeded.firstId = firstEvent.id;
  seeded.firstPosition = first.body.position;
  await api(server, 'POST', '/streams/order-1', { json: { type: 'Order.Paid', data: { amount: 12.5 }, metadata: { causationId: firstEvent.id, correlationId: firstEvent.id } } });
  // Caused by the order's first event, which is on another stream's page.
  await api(server, 'POST', '/streams/customer%2F7', { json: { type: 'Customer.Registered', data: { name: 'Ann' }, metadata: { causationId: firstEvent.id } } });
  await api(server, 'POST', '/streams/gone-1', { json: { type: 'Temp', data: {} } });
  await api(server, 'DELETE', '/streams/gone-1');
  // A group blocked at its first event, and one with a parked event.
  await api(server, 'PUT', '/consumers/billing?category=order&maxAttempts=1');
  const pulled = (await api(server, 'POST', '/consumers/billing/pull?consumer=w&max=1')).body.deliveries[0].event;
  await api(server, 'POST', '/consumers/billing/nack', { json: { position: pulled.position, reason: 'card declined' } });
  await api(server, 'PUT', '/consumers/mailer?category=customer&policy=park&maxAttempts=1');
  const mail = (await api(server, 'POST', '/consumers/mailer/pull?consumer=w&max=1')).body.deliveries[0].event;
  await api(server, 'POST', '/consumers/mailer/nack', { json: { position: mail.position, reason: 'smtp down' } });
  app = await consoleFor(server);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

// route, its h1, a screenshot name, and what else shows the page is whole.
const pages = [
  ['/', 'Dashboard', 'dashboard', async (page) => {
    for (const chart of ['Appends per second', 'Events per second', 'Append latency (ms)', 'Syncs per second', 'Connections and subscribers', 'Consumer lag (events)']) {
      await page.getByRole('figure', { name: chart, exact: true }).waitFor();
    }
    // The current values as text: a <dl> (terms and their values).
    assert.ok((await page.locator('main dl dt').count()) > 0 && (await page.locator('main dl dd').count()) > 0, 'the values as a <dl>');
    // A few seconds of appends, polled by the page, so the charts have lines.
    const until = Date.now() + 5000;
    for (let i = 0; Date.now() < until; i++) {
      const events = Array.from({ length: 1 + (i % 20) }, (_, n) => ({ type: 'Load.Tick', data: { i, n } }));
      await api(server, 'POST', `/streams/load-${i % 5}`, { json: events });
      await page.waitForTimeout(40);
    }
    await page.waitForTimeout(1100);
  }],
  ['/streams', 'Streams', 'streams', async (page) => {
    await page.getByRole('table', { name: 'Streams' }).getByRole('link', { name: 'order-1', exact: true }).waitFor();
  }],
  ['/streams/order-1', 'order-1', 'stream', async (page) => {
    // One event unfolded, so the screenshot and axe see the JSON view too.
    await page.getByRole('button', { name: 'Show event 1', exact: true }).click();
    await page.getByText('12.5').first().waitFor();
  }],
  ['/streams/gone-1', 'gone-1', 'stream-deleted', async (page) => {
    await page.getByRole('button', { name: 'Show event 0', exact: true }).waitFor();
  }],
  ['/events/1', 'Event 1', 'event', async (page) => {
    await page.getByRole('link', { name: 'order-1', exact: true }).waitFor();
  }],
  ['/tail', 'Live tail', 'tail', async (page) => {
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  }],
  ['/consumers', 'Consumer groups', 'consumers', async (page) => {
    await page.getByRole('table', { name: 'Consumer groups' }).getByRole('link', { name: 'billing', exact: true }).waitFor();
  }],
  ['/consumers/billing', 'billing', 'consumer-blocked', async (page) => {
    await page.getByRole('button', { name: 'Retry', exact: true }).waitFor();
  }],
  ['/consumers/mailer', 'mailer', 'consumer-parked', async (page) => {
    await page.getByRole('button', { name: 'Replay parked', exact: true }).waitFor();
  }],
  ['/append', 'Append', 'append', async (page) => {
    await page.getByLabel('Data (JSON)', { exact: true }).waitFor();
  }],
];

for (const [route, heading, name, ready] of pages) {
  test(`#${route} renders "${heading}" without errors, passes axe in both themes and widths`, async () => {
    const page = await openPage(browser, app.base, route);
    try {
      await waitForHeading(page, heading);
      await ready(page);
      await screenshot(page, name);
      const problems = [];
      for (const colorScheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme });
        for (const [width, viewport] of [['desktop', desktop], ['phone', phone]]) {
          await page.setViewportSize(viewport);
          for (const v of await seriousViolations(page)) problems.push(`${colorScheme} ${width}: ${v}`);
          // Wide tables scroll inside their own box: the page itself never scrolls sideways.
          const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
          if (scroll > client + 1) problems.push(`${colorScheme} ${width}: the page scrolls sideways (${scroll} px wide in ${client} px)`);
        }
      }
      if (name === 'dashboard' || name === 'stream') {
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.setViewportSize(desktop);
        await screenshot(page, `${name}-dark`);
      }
      assert.deepEqual(page.errors, [], 'console errors or uncaught exceptions');
      assert.deepEqual(problems, [], 'axe-core: serious or critical violations, or sideways scrolling');
    } finally {
      await page.close();
    }
  });
}

test('the browser asks for /favicon.ico by itself: the page names an icon, or the server has one', async () => {
  // A failed favicon is a console error on a profile's first page load (later
  // loads use Chromium's cache of the failure, so page.errors cannot see it).
  const html = await (await fetch(`${app.base}/console/`)).text();
  const res = await fetch(`${app.base}/favicon.ico`);
  await res.arrayBuffer();
  assert.ok(/<link[^>]+rel="?(shortcut )?icon/i.test(html) || res.status === 200, `no <link rel="icon"> in index.html and GET /favicon.ico answers ${res.status}`);
});

const csp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

test('the server serves the console: GET / redirects to /console/, the three files carry the CSP', { skip: process.env.CONSOLE_DEV_SERVER ? 'the dev server stands in for the binary' : false }, async () => {
  const root = await fetch(`${server.base}/`, { redirect: 'manual' });
  assert.equal(root.status, 302);
  assert.equal(new URL(root.headers.get('location'), server.base).pathname, '/console/');
  for (const [file, type] of [['', 'text/html'], ['app.js', 'javascript'], ['app.css', 'text/css']]) {
    const res = await fetch(`${server.base}/console/${file}`);
    await res.arrayBuffer();
    assert.equal(res.status, 200, `/console/${file}`);
    assert.match(res.headers.get('content-type') ?? '', new RegExp(type), `/console/${file} Content-Type`);
    // Every directive of the spec's policy, as given; the server may add stricter ones.
    const sent = directives(res.headers.get('content-security-policy') ?? '');
    for (const [name, value] of directives(csp)) assert.equal(sent.get(name), value, `/console/${file} CSP ${name}`);
  }
});

function directives(policy) {
  return new Map(policy.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0], d.split(/\s+/).slice(1).join(' ')]));
}

test('the layout: main navigation, Theme toggle kept across reloads, no sign-out without auth', async () => {
  const page = await openPage(browser, app.base, '/');
  try {
    await waitForHeading(page, 'Dashboard');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const link of ['Dashboard', 'Streams', 'Live tail', 'Consumer groups', 'Append']) {
      assert.equal(await nav.getByRole('link', { name: link, exact: true }).count(), 1, `nav link ${link}`);
    }
    await page.getByRole('main').waitFor();
    const dark = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const before = await dark();
    await page.getByRole('button', { name: 'Theme' }).click();
    const toggled = await dark();
    assert.notEqual(toggled, before, 'Theme changes the page background');
    await page.reload();
    await waitForHeading(page, 'Dashboard');
    assert.equal(await dark(), toggled, 'the Theme choice survives a reload');
    await page.getByRole('button', { name: 'Theme' }).click(); // back, for the other tests
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('the stream page expands an event: folded data, metadata links to the cause on this page, position link', async () => {
  const page = await openPage(browser, app.base, '/streams/order-1');
  try {
    await waitForHeading(page, 'order-1');
    const show = page.getByRole('button', { name: 'Show event 1', exact: true });
    assert.equal(await show.getAttribute('aria-expanded'), 'false');
    await show.click();
    assert.equal(await show.getAttribute('aria-expanded'), 'true');
    await page.getByText('12.5').first().waitFor();
    // causationId names event 0, on this page: a link (to its event page).
    const cause = page.getByRole('link', { name: seeded.firstId }).first();
    await cause.waitFor();
    assert.match(await cause.getAttribute('href'), new RegExp(`#/events/${seeded.firstPosition}$`));
    await page.getByRole('button', { name: 'Show event 0', exact: true }).click();
    assert.ok((await page.locator('details > summary').count()) > 0, 'data folds with <details>/<summary>');
    await page.getByRole('link', { name: 'Append to this stream' }).waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('the keyboard alone: skip link first, Tab to Streams, Enter (focus moves to the new page); a prefix typed and Enter searches (focus stays in the page)', async () => {
  const page = await openPage(browser, app.base, '/');
  try {
    await waitForHeading(page, 'Dashboard');
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Skip to content');
    let focused = '';
    for (let i = 0; i < 10 && focused !== 'Streams'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement?.textContent ?? '').trim());
    }
    assert.equal(focused, 'Streams', 'Tab reaches the Streams link');
    await page.keyboard.press('Enter');
    await waitForHeading(page, 'Streams');
    // A new page moves focus to its <main> (a screen reader reads it).
    await page.waitForFunction(() => document.activeElement?.id === 'main');
    await page.getByLabel('Prefix', { exact: true }).focus();
    await page.keyboard.type('order');
    await page.keyboard.press('Enter');
    const table = page.getByRole('table', { name: 'Streams' });
    await table.getByRole('link', { name: 'order-1', exact: true }).waitFor();
    await page.waitForFunction(() => !document.querySelector('table a[href*="customer"]'));
    assert.match(page.url(), /prefix=order/);
    // The search re-keyed the page's form: focus is in <main>, not lost to the body.
    await page.waitForFunction(() => document.activeElement?.closest('main') !== null);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('a cause on another stream is found by its id: the link opens its event page', async () => {
  const page = await openPage(browser, app.base, '/streams/customer%2F7');
  try {
    await waitForHeading(page, 'customer/7');
    await page.getByRole('button', { name: 'Show event 0', exact: true }).click();
    const cause = page.getByRole('link', { name: seeded.firstId });
    await cause.waitFor();
    assert.match(await cause.getAttribute('href'), new RegExp(`#/events/${seeded.firstId}$`));
    await cause.click();
    await waitForHeading(page, `Event ${seeded.firstId}`);
    await page.getByRole('link', { name: 'order-1' }).waitFor();
    await page.getByText('Order.Placed').first().waitFor();
    // An id no event has says so, plainly.
    const unknown = '5f0c0a4e-0000-4000-8000-000000000001';
    await page.goto(page.url().replace(/#.*/, `#/events/${unknown}`));
    await waitForHeading(page, `Event ${unknown}`);
    await page.getByText(`No event has the id ${unknown}.`).waitFor();
    assert.deepEqual(page.errors.filter((e) => !/status of 404/.test(e)), []);
  } finally {
    await page.close();
  }
});

test('a deleted stream says so; a position with no event says so', async () => {
  const page = await openPage(browser, app.base, '/streams/gone-1');
  try {
    await waitForHeading(page, 'gone-1');
    await page.getByRole('definition').filter({ hasText: /^\s*yes\s*$/ }).first().waitFor();
    await page.goto(page.url().replace(/#.*/, '#/events/999999999'));
    await waitForHeading(page, 'Event 999999999');
    await page.getByText('No event at position 999999999').waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('app.js + app.css as served, gzipped, stay within 250 KB', async () => {
  let total = 0;
  const sizes = [];
  for (const file of ['app.js', 'app.css']) {
    // node:http, not fetch: fetch would decompress; this counts the bytes on the wire.
    const raw = await rawGet(`${app.base}/console/${file}`);
    assert.equal(raw.status, 200, file);
    const gzipped = raw.encoding === 'gzip' ? raw.body.length : gzipSize(raw.body);
    sizes.push(`${file} ${gzipped} B${raw.encoding === 'gzip' ? '' : ' (served uncompressed; gzip -9 size)'}`);
    total += gzipped;
  }
  recordBudget(`bundle gzipped: ${total} B (${sizes.join(', ')})`);
  assert.ok(total <= 250 * 1024, `app.js + app.css gzipped: ${total} B > 250 KB`);
});

async function rawGet(url) {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

function gzipSize(buffer) {
  return gzipSync(buffer, { level: 9 }).length;
}

test('Append: bad JSON is refused naming the field; a good event is appended and checked over HTTP', async () => {
  const page = await openPage(browser, app.base, '/append?stream=note-1');
  try {
    await waitForHeading(page, 'Append');
    assert.equal(await page.getByLabel('Stream', { exact: true }).inputValue(), 'note-1', '?stream= fills Stream');
    await page.getByLabel('Type', { exact: true }).fill('Note.Written');
    await page.getByLabel('Data (JSON)', { exact: true }).fill('{"text": ');
    // A message naming the field: one more element whose text names Data than the label alone.
    const naming = page.getByText(/Data/);
    const labels = await naming.count();
    await page.getByRole('button', { name: 'Append', exact: true }).click();
    await waitFor(async () => (await naming.count()) > labels, 3000);
    assert.equal((await api(server, 'GET', '/streams/note-1/head', { expect: 404 })).status, 404, 'nothing appended');
    await page.getByLabel('Data (JSON)', { exact: true }).fill('{"text": "hello"}');
    await page.getByLabel('Expected version').selectOption({ label: 'No stream' });
    await page.getByRole('button', { name: 'Append', exact: true }).click();
    const head = await waitFor(async () => (await api(server, 'GET', '/streams/note-1/head', { expect: undefined }).catch(() => null))?.body);
    await page.getByRole('status').filter({ hasText: `Appended note-1 version 0 at position ${head.position}` }).waitFor();
    await page.getByRole('status').getByRole('link', { name: 'note-1' }).waitFor();
    const event = (await api(server, 'GET', '/streams/note-1?from=0&limit=1')).body.events[0];
    assert.equal(event.type, 'Note.Written');
    assert.deepEqual(event.data, { text: 'hello' });
    // Exactly with a stale version: the server's 409 shows as the alert.
    await page.getByLabel('Expected version').selectOption({ label: 'Exactly' });
    await page.getByLabel('Version', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Append', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: /409.*conflict/s }).waitFor();
    assert.deepEqual(page.errors.filter((e) => !/status of 409/.test(e)), []);
  } finally {
    await page.close();
  }
});

async function waitFor(probe, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
