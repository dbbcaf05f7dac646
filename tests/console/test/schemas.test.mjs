// The Schemas pages (docs/CONSOLE.md, docs/SCHEMAS.md): the list shows each
// registered type with its versions, mode, compatibility and upcasters, and
// the category and default settings; a type's page shows every version's
// schema pretty-printed and its upcasters. No console error, nothing serious
// for axe in light and dark, at 1280x800 and 375x812; screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, seriousViolations, screenshot, desktop, phone } from '../lib/browser.mjs';

let server, app, browser;

const V1 = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'], additionalProperties: false };
const V2 = { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' } }, required: ['amount'], additionalProperties: false };

before(async () => {
  server = await startServer();
  await api(server, 'POST', '/schemas/Order.Placed/versions', { json: { version: 'V1', schema: V1 } });
  await api(server, 'POST', '/schemas/Order.Placed/versions', { json: { version: 'V2', schema: V2 } });
  await api(server, 'POST', '/schemas/Order.Placed/upcasters', { json: { from: 'V1', to: 'V2', defaults: { '/currency': 'EUR' } } });
  await api(server, 'PUT', '/schemas/Order.Placed/settings', { json: { mode: 'enforce' } });
  await api(server, 'POST', '/schemas/Customer.Registered/versions', { json: { version: '1', schema: { type: 'object' } } });
  await api(server, 'PUT', '/schema-settings/categories/order', { json: { mode: 'warn' } });
  app = await consoleFor(server);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

test('the list: a row per type with versions, mode, compatibility and upcasters; the settings below', async () => {
  const page = await openPage(browser, app.base, '/schemas');
  await waitForHeading(page, 'Schemas');
  const table = page.getByRole('table', { name: 'Schema types' });
  const link = table.getByRole('link', { name: 'Order.Placed', exact: true });
  await link.waitFor();
  assert.match(await link.getAttribute('href'), /#\/schemas\/Order\.Placed$/);
  // `has` is matched inside each row: a locator from the page, not from the table.
  const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Order.Placed', exact: true }) });
  assert.deepEqual(await row.getByRole('cell').allTextContents(), ['Order.Placed', 'V1, V2', 'enforce', 'inherited', '1']);
  const other = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Customer.Registered', exact: true }) });
  assert.deepEqual(await other.getByRole('cell').allTextContents(), ['Customer.Registered', '1', 'inherited', 'inherited', '0']);
  const settings = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Settings', exact: true }) });
  await settings.getByText('mode off, compatibility backward').waitFor();
  await settings.getByText('mode warn, compatibility inherited').waitFor();
  // The nav marks the section.
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schemas', exact: true }).getAttribute('aria-current'), 'page');
  assert.deepEqual(page.errors, []);

  // A click opens the type.
  await link.click();
  await waitForHeading(page, 'Order.Placed');
  await page.close();
});

test("a type's page: each version's schema pretty-printed, the upcasters", async () => {
  const page = await openPage(browser, app.base, '/schemas/Order.Placed');
  await waitForHeading(page, 'Order.Placed');
  for (const [label, schema] of [['V1', V1], ['V2', V2]]) {
    await page.getByRole('heading', { level: 3, name: new RegExp(`^${label} \\(number`) }).waitFor();
    const pre = page.getByRole('region', { name: `Schema of ${label}`, exact: true });
    assert.equal(await pre.textContent(), JSON.stringify(schema, null, 2));
  }
  const upcasters = page.getByRole('table', { name: 'Upcasters' });
  const cells = await upcasters.getByRole('row').nth(1).getByRole('cell').allTextContents();
  assert.deepEqual(cells, ['V1', 'V2', '{}', '{"/currency":"EUR"}', '[]']);
  await page.getByText('enforce', { exact: true }).waitFor();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an unknown type says so', async () => {
  const page = await openPage(browser, app.base, '/schemas/No.Such.Type');
  await waitForHeading(page, 'No.Such.Type');
  await page.getByRole('alert').filter({ hasText: '404' }).waitFor();
  await page.close();
});

test('axe finds nothing serious in light and dark, at both sizes; screenshots', async () => {
  for (const [route, name] of [['/schemas', 'schemas'], ['/schemas/Order.Placed', 'schema-type']]) {
    for (const [viewport, size] of [[desktop, 'desktop'], [phone, 'phone']]) {
      for (const colorScheme of ['light', 'dark']) {
        const page = await openPage(browser, app.base, route, { viewport, colorScheme });
        await waitForHeading(page, name === 'schemas' ? 'Schemas' : 'Order.Placed');
        await page.getByText(name === 'schemas' ? 'mode off, compatibility backward' : '"currency"').first().waitFor();
        assert.deepEqual(await seriousViolations(page), [], `${route} ${size} ${colorScheme}`);
        await screenshot(page, `${name}-${size}-${colorScheme}`);
        assert.deepEqual(page.errors, []);
        await page.close();
      }
    }
  }
});
