// One long name among short ones: a 256-byte stream name (the API's limit),
// a 256-byte event type and a 200-character consumer group (their limits). Shown whole, it widened its
// table to 2,740 px, and every other column went out of sight on every row.
// At 1280x800 each table that lists names (streams, the live tail, consumer
// groups) fits its box with every column header in view, the long name's
// link carries it whole (text, title, address), and the pages it opens and
// the dashboard's legend do not scroll sideways either.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, screenshot } from '../lib/browser.mjs';

const longStream = `order-${'x'.repeat(250)}`; // 256 bytes
const longGroup = `g${'y'.repeat(199)}`; // 200 characters
const longType = `Order.${'z'.repeat(250)}`; // an event type may be 256 bytes too
let server, app, browser;

before(async () => {
  assert.equal(Buffer.byteLength(longStream), 256);
  server = await startServer();
  for (const stream of ['order-1', longStream, 'order-2']) {
    await api(server, 'POST', `/streams/${encodeURIComponent(stream)}`, { json: { type: stream === longStream ? longType : 'Order.Placed', data: {} } });
  }
  await api(server, 'PUT', '/consumers/billing');
  // The long group parks its first event, so its page links `$parked-<group>`.
  await api(server, 'PUT', `/consumers/${longGroup}?policy=park&maxAttempts=1`);
  const event = (await api(server, 'POST', `/consumers/${longGroup}/pull?consumer=w&max=1`)).body.deliveries[0].event;
  await api(server, 'POST', `/consumers/${longGroup}/nack`, { json: { position: event.position, reason: 'no' } });
  app = await consoleFor(server);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

// The page does not scroll sideways; the table (by its name) fits the box
// it scrolls in, and every column header lies inside that box.
async function expectFits(page, tableName) {
  const layout = await page.evaluate((name) => {
    const table = name && document.querySelector(`table[aria-label="${name}"]`);
    const box = table?.closest('.table-box');
    const rect = (e) => e.getBoundingClientRect();
    return {
      viewport: window.innerWidth,
      page: document.documentElement.scrollWidth,
      table: table && { width: rect(table).width, boxScroll: box.scrollWidth, boxClient: box.clientWidth, boxLeft: rect(box).left, boxRight: rect(box).right },
      headers: table ? [...table.querySelectorAll('th')].map((th) => ({ text: th.textContent, left: rect(th).left, right: rect(th).right })) : [],
    };
  }, tableName);
  assert.ok(layout.page <= layout.viewport, `the page is ${layout.page} px wide in a ${layout.viewport} px viewport`);
  if (!tableName) return;
  const { table } = layout;
  assert.ok(table, `a table named ${tableName}`);
  assert.ok(table.boxScroll <= table.boxClient, `${tableName}: the table is ${table.width} px wide in a ${table.boxClient} px box`);
  for (const th of layout.headers) {
    assert.ok(th.left >= table.boxLeft - 0.5 && th.right <= table.boxRight + 0.5, `${tableName}: the column "${th.text}" is in view (${th.left}..${th.right} in ${table.boxLeft}..${table.boxRight})`);
  }
}

// The long name's link: whole in its text, its title and its address.
async function expectWholeName(link, name, route) {
  assert.equal(await link.getAttribute('title'), name);
  assert.equal(await link.innerText(), name);
  assert.equal(await link.getAttribute('href'), `#/${route}/${encodeURIComponent(name)}`);
}

test('the streams page: a 256-byte name is cut to fit, whole in its link, and its page opens', async () => {
  const page = await openPage(browser, app.base, '/streams');
  try {
    const table = page.getByRole('table', { name: 'Streams' });
    const link = table.getByRole('link', { name: longStream, exact: true });
    await link.waitFor();
    await table.getByRole('link', { name: 'order-2', exact: true }).waitFor();
    await screenshot(page, 'streams-long-name');
    await expectFits(page, 'Streams');
    await expectWholeName(link, longStream, 'streams');
    await link.click();
    await waitForHeading(page, longStream);
    await page.getByRole('button', { name: 'Show event 0', exact: true }).waitFor();
    await expectFits(page, 'Events');
    assert.equal(await page.getByRole('table', { name: 'Events' }).getByTitle(longType, { exact: true }).innerText(), longType);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('the live tail: a row of the long stream fits', async () => {
  const page = await openPage(browser, app.base, '/tail');
  try {
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    for (const stream of [longStream, 'order-1']) {
      await api(server, 'POST', `/streams/${encodeURIComponent(stream)}`, { json: { type: stream === longStream ? longType : 'Order.Paid', data: {} } });
    }
    const table = page.getByRole('table', { name: 'Live events' });
    const link = table.getByRole('link', { name: longStream, exact: true });
    await link.waitFor();
    await table.getByRole('link', { name: 'order-1', exact: true }).waitFor();
    await expectFits(page, 'Live events');
    await expectWholeName(link, longStream, 'streams');
    assert.equal(await table.getByTitle(longType, { exact: true }).innerText(), longType);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('consumer groups: a 200-character group fits in the list, its page and the dashboard legend', async () => {
  const page = await openPage(browser, app.base, '/consumers');
  try {
    const link = page.getByRole('table', { name: 'Consumer groups' }).getByRole('link', { name: longGroup, exact: true });
    await link.waitFor();
    await expectFits(page, 'Consumer groups');
    await expectWholeName(link, longGroup, 'consumers');
    await link.click();
    await waitForHeading(page, longGroup);
    await page.getByRole('link', { name: `$parked-${longGroup}`, exact: true }).waitFor();
    await expectFits(page, null);
    await page.goto(page.url().replace(/#.*/, '#/'));
    await page.getByRole('figure', { name: 'Consumer lag (events)', exact: true }).getByText(longGroup).waitFor();
    await expectFits(page, null);
    await screenshot(page, 'dashboard-long-name');
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});
