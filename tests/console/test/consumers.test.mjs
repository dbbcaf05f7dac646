// Consumer group actions from the console (4), each checked on the server
// over HTTP after the console's Confirm: a blocked group is retried (the event
// is delivered again), blocked again, then skipped (the checkpoint moves past
// it); parked events are replayed. Cancel posts nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading } from '../lib/browser.mjs';

let server, app, browser, page;
let blockedAt; // the position of the event the group blocks at

before(async () => {
  server = await startServer();
  await api(server, 'POST', '/streams/invoice-1', { json: [{ type: 'Invoice.Issued', data: { n: 1 } }, { type: 'Invoice.Paid', data: { n: 2 } }] });
  await api(server, 'PUT', '/consumers/billing?category=invoice&maxAttempts=1');
  blockedAt = await pullAndNack('billing', 'card declined');
  app = await consoleFor(server);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

function status(group = 'billing') {
  return api(server, 'GET', `/consumers/${group}`).then((r) => r.body);
}

// Pulls one event and nacks it (maxAttempts=1: the group blocks or parks).
async function pullAndNack(group, reason) {
  const deliveries = (await api(server, 'POST', `/consumers/${group}/pull?consumer=test&max=1`)).body.deliveries;
  assert.equal(deliveries.length, 1, `${group}: one delivery`);
  const position = deliveries[0].event.position;
  await api(server, 'POST', `/consumers/${group}/nack`, { json: { position, reason } });
  return position;
}

// Clicks an action, checks the dialog, and confirms (or cancels) it.
async function act(action, dialogName, choice) {
  await page.getByRole('button', { name: action, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: dialogName });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: choice, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

test('the blocked group shows the position (a link to its event) and the reason', async () => {
  page = await openPage(browser, app.base, '/consumers/billing');
  const { blocked } = await status();
  assert.equal(blocked?.position, blockedAt);
  assert.match(blocked.reason, /card declined/);
  await waitForHeading(page, 'billing');
  const section = page.getByRole('region', { name: 'Blocked' }).or(page.locator('section').filter({ has: page.getByRole('heading', { name: 'Blocked', exact: true }) }));
  await section.first().waitFor();
  await section.first().getByText('card declined').waitFor();
  const link = section.first().getByRole('link', { name: String(blockedAt), exact: true });
  assert.match(await link.getAttribute('href'), new RegExp(`#/events/${blockedAt}$`));
  assert.deepEqual(page.errors, []);
});

test('Cancel posts nothing: the group stays blocked', async () => {
  await act('Retry', /Retry/, 'Cancel');
  await page.waitForTimeout(300);
  assert.equal((await status()).blocked?.position, blockedAt);
});

test('the keyboard alone: Tab reaches Retry, Enter opens the dialog with focus in it, Escape cancels', async () => {
  await page.locator('body').focus();
  let focused = '';
  for (let i = 0; i < 40 && focused !== 'Retry'; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => (document.activeElement?.textContent ?? '').trim());
  }
  assert.equal(focused, 'Retry', 'Tab reaches the Retry button');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: /Retry/ });
  await dialog.waitFor();
  assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus is inside the dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await page.waitForTimeout(300);
  assert.equal((await status()).blocked?.position, blockedAt, 'Escape posts nothing');
});

test('Retry, confirmed: the server unblocks and delivers the event again', async () => {
  await act('Retry', /Retry/, 'Confirm');
  await page.getByRole('button', { name: 'Retry', exact: true }).waitFor({ state: 'detached' });
  assert.equal((await status()).blocked, null, 'GET /consumers/billing: blocked is null after Retry');
  const again = (await api(server, 'POST', '/consumers/billing/pull?consumer=test&max=1')).body.deliveries;
  assert.equal(again[0]?.event.position, blockedAt, 'the blocked event is delivered again');
  await api(server, 'POST', '/consumers/billing/nack', { json: { position: blockedAt, reason: 'declined again' } });
  assert.equal((await status()).blocked?.position, blockedAt, 'blocked again');
  assert.deepEqual(page.errors, []);
});

test('Skip, confirmed: the checkpoint moves past the event', async () => {
  await page.reload();
  await waitForHeading(page, 'billing');
  await page.getByText('declined again').waitFor();
  await act('Skip', /Skip/, 'Confirm');
  await page.getByRole('button', { name: 'Skip', exact: true }).waitFor({ state: 'detached' });
  const after = await status();
  assert.equal(after.blocked, null);
  assert.ok(after.checkpoint >= blockedAt, `checkpoint ${after.checkpoint} past ${blockedAt}`);
  const next = (await api(server, 'POST', '/consumers/billing/pull?consumer=test&max=1')).body.deliveries;
  assert.equal(next[0]?.event.type, 'Invoice.Paid', 'the next pull goes on after the skipped event');
  assert.deepEqual(page.errors, []);
});

test('Replay parked, confirmed: the parked event is delivered again', async () => {
  await api(server, 'POST', '/streams/letter-1', { json: { type: 'Letter.Sent', data: {} } });
  await api(server, 'PUT', '/consumers/mailer?category=letter&policy=park&maxAttempts=1');
  const parkedAt = await pullAndNack('mailer', 'smtp down');
  assert.equal((await status('mailer')).parked.events, 1);
  await page.goto(page.url().replace(/#.*/, '#/consumers/mailer'));
  await waitForHeading(page, 'mailer');
  const parkedLink = page.getByRole('link', { name: '$parked-mailer', exact: true });
  assert.match(await parkedLink.getAttribute('href'), /#\/streams\/(%24|\$)parked-mailer/);
  await act('Replay parked', /Replay/, 'Confirm');
  const deliveries = (await api(server, 'POST', '/consumers/mailer/pull?consumer=test&max=1')).body.deliveries;
  assert.equal(deliveries[0]?.event.position, parkedAt, 'the parked event is delivered again');
  assert.notEqual(deliveries[0]?.parkedVersion, undefined);
  assert.deepEqual(page.errors, []);
});

test('the groups table lists both groups, with links', async () => {
  await page.goto(page.url().replace(/#.*/, '#/consumers'));
  await waitForHeading(page, 'Consumer groups');
  const table = page.getByRole('table', { name: 'Consumer groups' });
  for (const group of ['billing', 'mailer']) await table.getByRole('link', { name: group, exact: true }).waitFor();
  for (const column of ['Group', 'Checkpoint', 'Lag (events)', 'Lag (seconds)', 'In flight', 'Redeliveries', 'Blocked', 'Parked']) {
    assert.equal(await table.getByRole('columnheader', { name: column, exact: true }).count(), 1, `column ${column}`);
  }
  assert.deepEqual(page.errors, []);
});
