// A stream of 1,000,000 events (3): the page opens on its newest events
// without counting or walking the stream, and pages Older, Oldest, Newest.
// The time from navigation to the first row is printed, never asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, seedStream } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, consoleUrl, waitForHeading, recordBudget } from '../lib/browser.mjs';

const COUNT = 1_000_000;
const STREAM = 'big-1';
let server, app, browser, page;

before(async () => {
  server = await startServer();
  // Arrays of 1000 events, 4 requests in flight: 27 to 55 s on the ASan dev
  // build (2 cores, shared), where `indelible import` of an export took 8.5 s
  // per 100,000 (~85 s).
  const t0 = performance.now();
  await seedStream(server, STREAM, COUNT, { batch: 1000, inFlight: 4 });
  recordBudget(`seeding ${COUNT} events over HTTP: ${Math.round(performance.now() - t0)} ms`);
  const head = (await api(server, 'GET', `/streams/${STREAM}/head`)).body;
  assert.equal(head.version, COUNT - 1);
  app = await consoleFor(server);
  browser = await launchBrowser();
  page = await openPage(browser, app.base, '/');
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

const shown = (version) => page.getByRole('button', { name: `Show event ${version}`, exact: true });
const button = (name) => page.getByRole('button', { name, exact: true });

test('the newest page shows version 999999, and fast', async () => {
  // The bundle is loaded once first (the Dashboard), so the figure is the page's own work.
  await waitForHeading(page, 'Dashboard');
  const t0 = performance.now();
  await page.goto(consoleUrl(app.base, `/streams/${STREAM}`));
  await shown(COUNT - 1).waitFor({ timeout: 30000 });
  const ms = Math.round(performance.now() - t0);
  recordBudget(`stream page open (${COUNT} events), navigation to first row: ${ms} ms`);
  await waitForHeading(page, STREAM);
  assert.equal(await shown(COUNT - 50).count(), 1, 'a page of 50');
  assert.equal(await shown(COUNT - 51).count(), 0, 'a page of 50');
  assert.ok(await button('Newest').isDisabled(), 'Newest disabled on the newest page');
  assert.ok(await button('Newer').isDisabled(), 'Newer disabled on the newest page');
  assert.ok(await button('Older').isEnabled());
  assert.deepEqual(page.errors, []);
});

test('Older, Oldest (version 0), Newest', async () => {
  await button('Older').click();
  await shown(COUNT - 51).waitFor();
  assert.equal(await shown(COUNT - 1).count(), 0, 'Older replaces the page');
  assert.ok(await button('Newer').isEnabled());
  await button('Oldest').click();
  await shown(0).waitFor({ timeout: 15000 });
  assert.ok(await button('Older').isDisabled(), 'Older disabled on the oldest page');
  assert.ok(await button('Oldest').isDisabled(), 'Oldest disabled on the oldest page');
  await button('Newest').click();
  await shown(COUNT - 1).waitFor({ timeout: 15000 });
  assert.deepEqual(page.errors, []);
});

test('an event of the big stream expands, and its position opens the event page', async () => {
  await shown(COUNT - 1).click();
  assert.equal(await shown(COUNT - 1).getAttribute('aria-expanded'), 'true');
  await page.getByRole('link', { name: String(COUNT), exact: true }).first().click();
  await waitForHeading(page, `Event ${COUNT}`);
  await page.getByRole('link', { name: STREAM, exact: true }).waitFor();
  assert.deepEqual(page.errors, []);
});
