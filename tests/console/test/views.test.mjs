// What an operator reads at a glance (issue 39): the streams list's event
// counts and newest event (type, relative time, the exact time on hover);
// a stream's rows with type and a data preview; the header's event search
// by id or position; and, on an empty server, pages that say what to do
// next. Each checked against what the server holds, with axe on the new
// views and the keyboard alone for the search.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, seriousViolations } from '../lib/browser.mjs';

let server, empty, app, emptyApp, browser;
const seeded = {};

before(async () => {
  server = await startServer();
  await api(server, 'POST', '/streams/order-1', {
    json: [
      { type: 'Order.Placed', data: { sku: 'A-1', qty: 2 } },
      { type: 'Order.Paid', data: { amount: 12.5, note: 'x'.repeat(300) } },
      { type: 'Order.Shipped', data: { carrier: 'DHL' } },
    ],
  });
  await api(server, 'POST', '/streams/customer-7', { json: { type: 'Customer.Registered', data: { name: 'Ann' } } });
  await api(server, 'POST', '/streams/gone-1', { json: { type: 'Temp', data: {} } });
  await api(server, 'DELETE', '/streams/gone-1');
  const page = (await api(server, 'GET', '/streams/order-1?from=0')).body.events;
  seeded.placed = page[0];
  seeded.shipped = page[2];
  empty = await startServer();
  app = await consoleFor(server);
  emptyApp = await consoleFor(empty);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await emptyApp?.stop();
  await server?.stop();
  await empty?.stop();
});

const rowOf = (page, table, name) => page.getByRole('table', { name: table }).getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

test('the streams list shows each stream’s event count and its newest event’s type and time', async () => {
  const page = await openPage(browser, app.base, '/streams');
  await waitForHeading(page, 'Streams');
  const row = rowOf(page, 'Streams', 'order-1');
  await row.waitFor();
  const cells = await row.getByRole('cell').allTextContents();
  assert.equal(cells[1], '3', 'three events appended');
  assert.equal(cells[2], 'Order.Shipped', 'the newest event’s type');
  // Relative to now, the exact time in the tooltip and the <time> element.
  assert.match(cells[3], /^(just now|\d+ s ago)$/);
  const time = row.locator('time');
  assert.equal(await time.getAttribute('title'), new Date(seeded.shipped.timestamp).toISOString());
  assert.equal(await time.getAttribute('datetime'), new Date(seeded.shipped.timestamp).toISOString());
  // A deleted stream: its tombstone is its newest event.
  const gone = await rowOf(page, 'Streams', 'gone-1').getByRole('cell').allTextContents();
  assert.equal(gone[1], '2', 'the event and its tombstone');
  assert.equal(gone[2], '$deleted');
  assert.equal(gone[5], 'yes');
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a stream’s rows show the type and a one-line data preview, whole in the tooltip', async () => {
  const page = await openPage(browser, app.base, '/streams/order-1');
  await waitForHeading(page, 'order-1');
  const table = page.getByRole('table', { name: 'Events' });
  const headers = await table.getByRole('columnheader').allTextContents();
  assert.deepEqual(headers, ['Version', 'Position', 'Type', 'Data', 'Time']);
  const placed = table.getByRole('row').filter({ has: page.getByRole('button', { name: 'Show event 0', exact: true }) });
  const cells = await placed.getByRole('cell').allTextContents();
  assert.equal(cells[2], 'Order.Placed');
  assert.equal(cells[3], '{"sku":"A-1","qty":2}');
  // A long payload is cut to one line, and shown whole on hover.
  const paid = table.getByRole('row').filter({ has: page.getByRole('button', { name: 'Show event 1', exact: true }) });
  const preview = paid.getByRole('cell').nth(3);
  const text = await preview.textContent();
  assert.ok(text.length <= 80 && text.endsWith('…'), `cut: ${text.length} characters`);
  assert.ok((await preview.getAttribute('title')).includes('x'.repeat(300)), 'whole in the tooltip');
  assert.equal(await placed.locator('time').getAttribute('title'), new Date(seeded.placed.timestamp).toISOString());
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the header finds an event by id or position, from the keyboard alone', async () => {
  const page = await openPage(browser, app.base, '/streams');
  await waitForHeading(page, 'Streams');
  const search = page.getByRole('search', { name: 'Find an event' });
  const box = search.getByRole('searchbox', { name: 'Event id or position' });
  // Tab from the last navigation link reaches the box.
  await page.getByRole('link', { name: 'Schemas', exact: true }).focus();
  for (let i = 0; i < 3 && !(await box.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Tab');
  assert.ok(await box.evaluate((e) => e === document.activeElement), 'Tab reaches the search box');
  await page.keyboard.type(seeded.placed.id.toUpperCase());
  await page.keyboard.press('Enter');
  await waitForHeading(page, `Event ${seeded.placed.id.toUpperCase()}`);
  await page.getByRole('link', { name: 'order-1', exact: true }).waitFor();
  await page.getByText('Order.Placed').first().waitFor();
  // By position.
  await box.fill(String(seeded.shipped.position));
  await box.press('Enter');
  await waitForHeading(page, `Event ${seeded.shipped.position}`);
  await page.getByText('Order.Shipped').first().waitFor();
  // An id no event has: said plainly.
  const unknown = '00000000-0000-4000-8000-000000000000';
  await box.fill(unknown);
  await box.press('Enter');
  await page.getByText(`No event has the id ${unknown}.`).waitFor();
  // The browser logs the lookup's 404 itself; nothing else may be logged.
  assert.deepEqual(page.errors.filter((e) => !e.includes(`404 (Not Found) (${app.base}/events/${unknown})`)), []);
  await page.close();
});

test('an empty server’s pages say what to do next', async () => {
  const checks = [
    ['/streams', 'Streams', 'No streams yet.', async (page) => {
      await page.getByRole('link', { name: 'Append an event', exact: true }).waitFor();
      assert.match(await page.locator('.empty pre').textContent(), new RegExp(`^curl -X POST ${empty.base.replace(/[.]/g, '\\.')}/streams/order-1 `));
    }],
    ['/streams?prefix=nothing', 'Streams', 'No stream matches: names starting with “nothing”.', async (page) => {
      await page.getByRole('link', { name: 'Show every stream', exact: true }).waitFor();
    }],
    ['/consumers', 'Consumer groups', 'No consumer groups yet.', async (page) => {
      assert.match(await page.locator('.empty pre').textContent(), /^indelible --url http:\/\/[^ ]+ consumers create /);
    }],
    ['/schemas', 'Schemas', 'No schemas registered yet.', async (page) => {
      assert.match(await page.locator('.empty pre').textContent(), /schemas register /);
    }],
    ['/tail', 'Live tail', 'Waiting for new events…', async (page) => {
      await page.locator('.empty').getByRole('link', { name: 'Streams', exact: true }).waitFor();
    }],
  ];
  for (const [route, heading, title, more] of checks) {
    const page = await openPage(browser, emptyApp.base, route);
    await waitForHeading(page, heading);
    await page.locator('.empty-title').filter({ hasText: title }).waitFor();
    await more(page);
    assert.deepEqual(await seriousViolations(page), [], route);
    assert.deepEqual(page.errors, [], route);
    await page.close();
  }
});
