// A consumer group's page (issue 39): its members (the workers that pulled,
// what they hold, their last pull), its parked events one by one (view,
// retry, skip, each confirmed, each checked on the server over HTTP), and
// its lag explained and charted. axe on the whole page, and the keyboard
// alone for a parked event's action.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, seriousViolations } from '../lib/browser.mjs';

let server, app, browser, page;
const events = {};

before(async () => {
  server = await startServer();
  // customer-1's first event fails and parks; its two later ones park behind it.
  await api(server, 'POST', '/streams/customer-1', { json: [0, 1, 2].map((n) => ({ type: 'Customer.Mailed', data: { n } })) });
  await api(server, 'POST', '/streams/customer-2', { json: { type: 'Customer.Mailed', data: { n: 0 } } });
  await api(server, 'PUT', '/consumers/mailer?category=customer&policy=park&maxAttempts=1');
  const first = (await pull('worker-a', 1))[0].event;
  events.first = first;
  await api(server, 'POST', '/consumers/mailer/nack', { json: { position: first.position, reason: 'smtp down' } });
  // The group reaches customer-1's later events (parked behind) and customer-2's.
  const rest = await pull('worker-a', 10);
  assert.deepEqual(rest.map((d) => d.event.stream), ['customer-2'], 'customer-1 is parked: only customer-2 goes out');
  await api(server, 'POST', '/consumers/mailer/ack', { json: { positions: rest.map((d) => d.event.position) } });
  // worker-b holds nothing yet but has pulled.
  await pull('worker-b', 1);
  app = await consoleFor(server);
  browser = await launchBrowser();
  page = await openPage(browser, app.base, '/consumers/mailer');
  await waitForHeading(page, 'mailer');
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

async function pull(consumer, max) {
  return (await api(server, 'POST', `/consumers/mailer/pull?consumer=${consumer}&max=${max}`)).body.deliveries;
}

async function parkedOnServer() {
  const body = (await api(server, 'GET', '/consumers/mailer/parked')).body;
  return Object.fromEntries(body.events.map((p) => [p.parkedVersion, p.state]));
}

const parkedRow = (v) =>
  page.getByRole('table', { name: 'Parked events' }).getByRole('row').filter({ has: page.getByRole('button', { name: `View parked event ${v}`, exact: true }) });

async function confirmAction(button, question) {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: question });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

test('members: each worker that pulled, what it holds, its last pull', async () => {
  const table = page.getByRole('table', { name: 'Members' });
  await table.waitFor();
  const rows = table.getByRole('row');
  await rows.nth(2).waitFor();
  const cells = async (i) => rows.nth(i).getByRole('cell').allTextContents();
  const a = await cells(1);
  const b = await cells(2);
  assert.equal(a[0], 'worker-a');
  assert.equal(a[1], '0', 'worker-a acknowledged what it holds');
  assert.match(a[3], /^(just now|\d+ s ago)$/);
  assert.equal(b[0], 'worker-b');
  // The server's own view agrees.
  const members = (await api(server, 'GET', '/consumers/mailer')).body.members;
  assert.deepEqual(members.map((m) => m.consumer), ['worker-a', 'worker-b']);
  assert.equal(await rows.nth(1).locator('time').getAttribute('title'), new Date(members[0].lastPull).toISOString());
});

test('parked events one by one: where each came from, why, its state; View shows the copy', async () => {
  await parkedRow(0).waitFor();
  const first = await parkedRow(0).getByRole('cell').allTextContents();
  assert.equal(first[0], '0');
  assert.equal(first[1], 'customer-1 v0');
  assert.equal(first[2], 'Customer.Mailed');
  assert.match(first[3], /smtp down/);
  assert.equal(first[6], 'pending');
  for (const v of [1, 2]) assert.equal((await parkedRow(v).getByRole('cell').allTextContents())[1], `customer-1 v${v}`);
  await page.getByRole('button', { name: 'View parked event 0', exact: true }).click();
  const details = page.locator('.details-row');
  // The copy's metadata says why: the last failure's reason.
  await details.getByText(/last: smtp down/).waitFor();
  await details.getByRole('link', { name: `$parked-mailer`, exact: true }).waitFor();
  await page.getByRole('button', { name: 'View parked event 0', exact: true }).click();
  await details.waitFor({ state: 'hidden' });
  assert.deepEqual(await seriousViolations(page), []);
});

test('a retry that would pass an earlier pending event of its stream is refused, nothing changed', async () => {
  await confirmAction('Retry parked event 1', 'Retry parked event 1?');
  await page.getByRole('alert').filter({ hasText: /409 conflict: .*\b0\b/ }).waitFor();
  assert.deepEqual(await parkedOnServer(), { 0: 'pending', 1: 'pending', 2: 'pending' });
});

test('Retry delivers that one event again; acknowledged, it is resolved', async () => {
  await confirmAction('Retry parked event 0', 'Retry parked event 0?');
  await page.getByRole('status').filter({ hasText: 'Retry of parked event 0 done.' }).waitFor();
  await parkedRow(0).getByRole('cell', { name: 'retrying', exact: true }).waitFor();
  const again = await pull('worker-b', 10);
  assert.equal(again.length, 1, 'that event alone');
  assert.equal(again[0].parkedVersion, 0);
  assert.equal(again[0].event.id, events.first.id);
  await api(server, 'POST', '/consumers/mailer/ack', { json: { positions: [again[0].event.position] } });
  await parkedRow(0).getByRole('cell', { name: 'resolved', exact: true }).waitFor();
  assert.equal((await parkedOnServer())[0], 'resolved');
});

test('Skip discards a parked event; skipping the last pending one of a stream unparks it', async () => {
  await confirmAction('Skip parked event 1', 'Skip parked event 1?');
  // Skipped (or resolved at once: nothing before it of its stream is left to remember).
  await parkedRow(1).getByRole('cell', { name: /^(skipped|resolved)$/ }).waitFor();
  // No action on what is not pending.
  assert.equal(await page.getByRole('button', { name: 'Skip parked event 1', exact: true }).count(), 0);
  await confirmAction('Skip parked event 2', 'Skip parked event 2?');
  await page.getByRole('status').filter({ hasText: 'Skip of parked event 2 done.' }).waitFor();
  const states = await parkedOnServer();
  assert.equal(states[1] === 'skipped' || states[1] === 'resolved', true, `1: ${states[1]}`);
  assert.equal(states[2] === 'skipped' || states[2] === 'resolved', true, `2: ${states[2]}`);
  // customer-1 is unparked: its new events go out again.
  await api(server, 'POST', '/streams/customer-1', { json: { type: 'Customer.Mailed', data: { n: 3 } } });
  const next = await pull('worker-b', 10);
  assert.deepEqual(next.map((d) => [d.event.stream, d.event.version]), [['customer-1', 3]]);
  await api(server, 'POST', '/consumers/mailer/ack', { json: { positions: next.map((d) => d.event.position) } });
});

test('the keyboard alone reaches a parked event’s action; Escape cancels and nothing is posted', async () => {
  await api(server, 'POST', '/streams/customer-3', { json: { type: 'Customer.Mailed', data: { n: 0 } } });
  const [d] = await pull('worker-a', 1);
  await api(server, 'POST', '/consumers/mailer/nack', { json: { position: d.event.position, reason: 'bounced' } });
  const button = page.getByRole('button', { name: 'Retry parked event 3', exact: true });
  await button.waitFor();
  await page.getByRole('button', { name: 'View parked event 3', exact: true }).focus();
  await page.keyboard.press('Tab');
  assert.ok(await button.evaluate((e) => e === document.activeElement), 'Tab goes from View to Retry');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Retry parked event 3?' });
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await parkedOnServer())[3], 'pending');
});

test('the lag is explained, with what each figure counts, and charted while the page is open', async () => {
  const lag = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Lag', exact: true }) });
  await lag.getByText(/^Lag \(events\): \d+$/).waitFor();
  await lag.getByText(/minus the group's checkpoint/).waitFor();
  await lag.getByText(/oldest event the group holds/).waitFor();
  await lag.getByRole('figure', { name: 'Lag (events) while this page is open', exact: true }).waitFor();
  await lag.getByRole('figure', { name: 'Lag (seconds) while this page is open', exact: true }).waitFor();
  assert.deepEqual(await seriousViolations(page), []);
  // The browser logs the refused retry's 409 itself; nothing else may be logged.
  assert.deepEqual(page.errors.filter((e) => !e.includes('status of 409 (Conflict)') || !e.includes('/parked/1/retry')), []);
});
