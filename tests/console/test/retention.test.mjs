// A stream's retention on its page (docs/CONSOLE.md, docs/RETENTION.md):
// shown to readers, edited with the delete right; a save hides the older
// events from the page at once and says where the stream now starts; an
// edit made meanwhile elsewhere is a 409 that writes nothing; a reader
// without the right sees no edit button. No console error, nothing serious
// for axe with the form open, in light and dark; screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, seriousViolations, screenshot, desktop, phone } from '../lib/browser.mjs';

let server, app, browser;

before(async () => {
  server = await startServer();
  await api(server, 'POST', '/streams/sensor-1', { json: Array.from({ length: 10 }, (_, i) => ({ type: 'Read', data: { n: i } })) });
  await api(server, 'POST', '/streams/sensor-2', { json: { type: 'Read', data: { n: 0 } } });
  await api(server, 'PUT', '/streams/sensor-2/metadata', { json: { maxAge: 86400, custom: { owner: 'ops' } }, headers: { 'If-None-Match': '*' } });
  app = await consoleFor(server);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

const retention = (page) => page.locator('section').filter({ has: page.getByRole('heading', { name: 'Retention', exact: true }) });
const rows = async (page) => (await page.getByRole('table', { name: 'Events' }).getByRole('row').count()) - 1;

test('a stream without retention says so; a save hides the older events at once', async () => {
  const page = await openPage(browser, app.base, '/streams/sensor-1');
  await waitForHeading(page, 'sensor-1');
  await retention(page).getByText('None: every event of this stream is kept.').waitFor();
  assert.equal(await rows(page), 10);
  await page.getByRole('button', { name: 'Edit retention', exact: true }).click();
  await page.getByLabel('Max count', { exact: true }).fill('3');
  await screenshot(page, 'retention-form');
  await page.getByRole('button', { name: 'Save retention', exact: true }).click();
  await retention(page).getByText('First readable version').waitFor();
  const facts = await retention(page).locator('dl').textContent();
  assert.match(facts, /Max count3/);
  assert.match(facts, /First readable version7/);
  await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 3);
  assert.equal(await rows(page), 3);
  const stored = await api(server, 'GET', '/streams/sensor-1/metadata');
  assert.deepEqual(stored.body.metadata, { maxCount: 3 });
  assert.equal(stored.body.version, 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an edit made meanwhile elsewhere is a 409 naming it, and nothing is written', async () => {
  const page = await openPage(browser, app.base, '/streams/sensor-2');
  await waitForHeading(page, 'sensor-2');
  await retention(page).getByText('86400 s (1 day)').waitFor();
  await retention(page).getByRole('group', { name: 'Custom metadata' }).getByText('"ops"').waitFor();
  await page.getByRole('button', { name: 'Edit retention', exact: true }).click();
  // The form starts from what is stored.
  assert.equal(await page.getByLabel('Max age (seconds)', { exact: true }).inputValue(), '86400');
  assert.match(await page.getByLabel('Custom (JSON)', { exact: true }).inputValue(), /"owner": "ops"/);
  await api(server, 'PUT', '/streams/sensor-2/metadata', { json: { maxAge: 3600 }, headers: { 'If-Match': '"0"' } });
  await page.getByLabel('Max count', { exact: true }).fill('5');
  await page.getByRole('button', { name: 'Save retention', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: '409 conflict' }).waitFor();
  assert.deepEqual((await api(server, 'GET', '/streams/sensor-2/metadata')).body.metadata, { maxAge: 3600 });
  // Bad input is named before anything is sent: the browser's own check of
  // the number fields, the form's of the JSON.
  await page.getByLabel('Max count', { exact: true }).fill('0');
  assert.equal(await page.getByLabel('Max count', { exact: true }).evaluate((e) => e.validity.valid), false);
  await page.getByLabel('Max count', { exact: true }).fill('5');
  await page.getByLabel('Custom (JSON)', { exact: true }).fill('{');
  await page.getByRole('button', { name: 'Save retention', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'Custom (JSON) is not valid JSON' }).waitFor();
  assert.deepEqual((await api(server, 'GET', '/streams/sensor-2/metadata')).body.metadata, { maxAge: 3600 });
  // Cancel closes the form; only errors the server sent are console errors.
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await page.getByRole('button', { name: 'Edit retention', exact: true }).waitFor();
  assert.ok(page.errors.every((e) => e.includes('409')), page.errors.join('\n'));
  await page.close();
});

test('axe finds nothing serious with the form open, in light and dark, at both sizes', async () => {
  for (const [viewport, size] of [[desktop, 'desktop'], [phone, 'phone']]) {
    for (const colorScheme of ['light', 'dark']) {
      const page = await openPage(browser, app.base, '/streams/sensor-2', { viewport, colorScheme });
      await waitForHeading(page, 'sensor-2');
      await page.getByRole('button', { name: 'Edit retention', exact: true }).click();
      await page.getByLabel('Max age (seconds)', { exact: true }).waitFor();
      assert.deepEqual(await seriousViolations(page), [], `${size} ${colorScheme}`);
      await screenshot(page, `retention-${size}-${colorScheme}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  }
});
