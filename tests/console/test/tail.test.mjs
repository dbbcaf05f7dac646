// The live tail (2): an event appended over HTTP shows (the delay after the
// append's answer is recorded against the 1 s budget); Pause drops the connection and Resume misses nothing; Apply
// narrows the subscription to a filter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, recordBudget } from '../lib/browser.mjs';

let server, app, browser, page;

before(async () => {
  server = await startServer();
  await api(server, 'POST', '/streams/before-1', { json: { type: 'Old', data: {} } });
  app = await consoleFor(server);
  browser = await launchBrowser();
  page = await openPage(browser, app.base, '/tail');
  await waitForHeading(page, 'Live tail');
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

const table = () => page.getByRole('table', { name: 'Live events' });
const rowOf = (stream) => table().getByRole('row').filter({ has: page.getByRole('cell', { name: stream, exact: true }) });
const status = () => page.getByRole('status');

// Appends one event and returns how long after the answer its row showed
// (or throws after `timeout` ms).
async function appendAndWait(stream, type, timeout) {
  const answer = await api(server, 'POST', `/streams/${encodeURIComponent(stream)}`, { json: { type, data: { at: Date.now() } } });
  const t0 = performance.now();
  await rowOf(stream).waitFor({ timeout });
  return { ms: Math.round(performance.now() - t0), position: answer.body.position };
}

// The time an event takes to show is recorded (recordBudget; the console's
// 1 s budget is a benchmark, scripts/bench-console.sh), not asserted: the
// wait only guards against an event that never shows.
test('starts at the end, Live, and shows an appended event (its delay recorded)', async () => {
  await status().filter({ hasText: 'Live' }).waitFor();
  assert.equal(await rowOf('before-1').count(), 0, 'from=end: events from before the page opened are not shown');
  // One event first, so the subscription is surely open on the server.
  await appendAndWait('warmup-1', 'Warmup', 5000);
  const { ms, position } = await appendAndWait('tail-1', 'Tail.Appended', 10000);
  recordBudget(`live tail: event shown ${ms} ms after the append's answer`);
  const row = rowOf('tail-1');
  await row.getByRole('cell', { name: String(position), exact: true }).waitFor();
  await row.getByRole('cell', { name: 'Tail.Appended', exact: true }).waitFor();
  // Newest first: the new event's row comes before the warm-up's.
  const streams = await table().getByRole('row').allInnerTexts();
  assert.ok(streams.findIndex((r) => r.includes('tail-1')) < streams.findIndex((r) => r.includes('warmup-1')), 'newest first');
  assert.deepEqual(page.errors, []);
});

test('Pause drops the connection; Resume continues from the last position, missing nothing', async () => {
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await status().filter({ hasText: 'Paused' }).waitFor();
  await api(server, 'POST', '/streams/paused-1', { json: { type: 'WhilePaused', data: {} } });
  await page.waitForTimeout(1000);
  assert.equal(await rowOf('paused-1').count(), 0, 'nothing shows while paused');
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await status().filter({ hasText: 'Live' }).waitFor();
  await rowOf('paused-1').waitFor({ timeout: 3000 });
  await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
  assert.deepEqual(page.errors, []);
});

test('Apply restarts the subscription with the Category filter', async () => {
  await page.getByLabel('Category').fill('wanted');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await status().filter({ hasText: 'Live' }).waitFor();
  await appendAndWait('wanted-1', 'Warmup', 5000);
  await api(server, 'POST', '/streams/unwanted-1', { json: { type: 'Other', data: {} } });
  await appendAndWait('wanted-2', 'Wanted', 10000);
  assert.equal(await rowOf('unwanted-1').count(), 0, 'an event of another category is not shown');
  assert.deepEqual(page.errors, []);
});
