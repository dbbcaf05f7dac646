// With --auth (5): the console asks for a credential; a wrong key shows the
// 401 alert; a reader key gets no Append link, no Retry/Skip on a blocked
// group, no retention editing, and the dashboard's no-metrics message
// instead of charts; the admin key gets all four. Also the Sign in page passes axe in both themes.
// Signed out (on a first load, or after a 401), every route shows the
// sign-in form, never a "Loading…" that waits for nobody, and no Append
// link; signing in there opens the page that was asked for.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api } from '../lib/server.mjs';
import { launchBrowser, consoleFor, openPage, waitForHeading, seriousViolations, screenshot, desktop, phone } from '../lib/browser.mjs';

let server, app, browser, readerKey;

before(async () => {
  server = await startServer({ auth: true });
  const key = server.adminKey;
  readerKey = (await api(server, 'POST', '/keys', { key, json: { name: 'r', roles: ['reader'] }, expect: 201 })).body.key;
  await api(server, 'POST', '/streams/order-1', { key, json: { type: 'Order.Placed', data: {} } });
  await api(server, 'PUT', '/consumers/billing?maxAttempts=1', { key });
  const event = (await api(server, 'POST', '/consumers/billing/pull?consumer=w&max=1', { key })).body.deliveries[0].event;
  await api(server, 'POST', '/consumers/billing/nack', { key, json: { position: event.position, reason: 'no' } });
  app = await consoleFor(server);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await server?.stop();
});

async function signIn(page, key) {
  await waitForHeading(page, 'Sign in');
  await page.getByLabel('API key or token').fill(key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const nav = (page) => page.getByRole('navigation', { name: 'Main' });
const goto = (page, route) => page.goto(page.url().replace(/#.*/, `#${route}`));

test('without a credential the console shows Sign in, which passes axe', async () => {
  const page = await openPage(browser, app.base, '/');
  try {
    await waitForHeading(page, 'Sign in');
    assert.match(page.url(), /#\/$/, 'the address stays on the page asked for');
    await screenshot(page, 'sign-in');
    const problems = [];
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      for (const [width, viewport] of [['desktop', desktop], ['phone', phone]]) {
        await page.setViewportSize(viewport);
        for (const v of await seriousViolations(page)) problems.push(`${colorScheme} ${width}: ${v}`);
      }
    }
    assert.deepEqual(problems, []);
    // The whoami 401 is the one expected failure (Chromium logs every failed request).
    assert.deepEqual(page.errors.filter((e) => !/status of 401/.test(e)), []);
  } finally {
    await page.close();
  }
});

test('the console itself is open: no credential needed for /console/ and its files', async () => {
  for (const file of ['', 'app.js', 'app.css']) {
    const res = await fetch(`${app.base}/console/${file}`);
    await res.arrayBuffer();
    assert.equal(res.status, 200, `/console/${file}`);
  }
});

test('a wrong key shows the 401 alert and stays on Sign in', async () => {
  const page = await openPage(browser, app.base, '/sign-in');
  try {
    await signIn(page, 'not-a-key');
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: '401' }).waitFor();
    assert.match(await alert.innerText(), /401.*unauthorized/s);
    await waitForHeading(page, 'Sign in');
  } finally {
    await page.close();
  }
});

test('the reader: no Append link, no Retry/Skip, no charts but a message', async () => {
  const page = await openPage(browser, app.base, '/sign-in');
  try {
    await signIn(page, readerKey);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const { principal } = (await api(server, 'GET', '/auth/whoami', { key: readerKey })).body;
    await page.getByRole('banner').getByText(principal).waitFor();
    await nav(page).getByRole('link', { name: 'Streams', exact: true }).waitFor();
    assert.equal(await nav(page).getByRole('link', { name: 'Append', exact: true }).count(), 0, 'no Append link');
    await goto(page, '/');
    await waitForHeading(page, 'Dashboard');
    await page.getByRole('main').getByText(/metrics/i).first().waitFor();
    await page.waitForTimeout(1500); // a poll or two would have drawn charts
    assert.equal(await page.getByRole('figure').count(), 0, 'no charts without the metrics right');
    await goto(page, '/consumers/billing');
    await waitForHeading(page, 'billing');
    await page.waitForTimeout(1000);
    for (const action of ['Retry', 'Skip', 'Replay parked']) {
      assert.equal(await page.getByRole('button', { name: action, exact: true }).count(), 0, `no ${action} button`);
    }
    // The reader may read streams: the stream page works, with no append link.
    await goto(page, '/streams/order-1');
    await page.getByRole('button', { name: 'Show event 0', exact: true }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Append to this stream' }).count(), 0);
    // Its retention is shown, not editable (writing it needs `delete`).
    await page.getByRole('heading', { name: 'Retention', exact: true }).waitFor();
    await page.getByText('None: every event of this stream is kept.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Edit retention' }).count(), 0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await waitForHeading(page, 'Sign in');
  } finally {
    await page.close();
  }
});

test('the admin: Append link, Retry and Skip, charts', async () => {
  const page = await openPage(browser, app.base, '/sign-in');
  try {
    await signIn(page, server.adminKey);
    await nav(page).getByRole('link', { name: 'Append', exact: true }).waitFor();
    await goto(page, '/');
    await page.getByRole('figure', { name: 'Appends per second' }).waitFor();
    await goto(page, '/consumers/billing');
    await waitForHeading(page, 'billing');
    await page.getByRole('button', { name: 'Retry', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Skip', exact: true }).waitFor();
    await goto(page, '/streams/order-1');
    await page.getByRole('button', { name: 'Edit retention', exact: true }).waitFor();
    assert.deepEqual(page.errors.filter((e) => !/status of 401/.test(e)), []);
  } finally {
    await page.close();
  }
});

// Every route of the console and its <h1> once signed in.
const routes = [
  ['/', 'Dashboard'],
  ['/streams', 'Streams'],
  ['/streams/order-1', 'order-1'],
  ['/events/1', 'Event 1'],
  ['/tail', 'Live tail'],
  ['/consumers', 'Consumer groups'],
  ['/consumers/billing', 'billing'],
  ['/append?stream=order-1', 'Append'],
  ['/no-such-page', 'Page not found'],
];
const navLinks = [
  ['Dashboard', '/'],
  ['Streams', '/streams'],
  ['Live tail', '/tail'],
  ['Consumer groups', '/consumers'],
];

// Signed out: the sign-in form, soon, with nothing still "Loading…" and no
// Append link (no one may append before signing in).
async function expectSignIn(page, where) {
  await waitForHeading(page, 'Sign in', 5000).catch((e) => {
    throw new Error(`${where}: no Sign in heading (${e.message.split('\n')[0]})`);
  });
  await page.waitForTimeout(300); // a page that was going to replace the form would have by now
  assert.equal(await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).count(), 1, `${where}: Sign in stays`);
  assert.equal(await page.getByText('Loading…').count(), 0, `${where}: nothing left "Loading…"`);
  assert.equal(await nav(page).getByRole('link', { name: 'Append', exact: true }).count(), 0, `${where}: no Append link signed out`);
}

async function clickEveryNavLink(page, where) {
  for (const [label, route] of navLinks) {
    await nav(page).getByRole('link', { name: label, exact: true }).click();
    await page.waitForURL((url) => url.hash === `#${route}`);
    await expectSignIn(page, `${where}, then ${label}`);
  }
}

test('signed out, every route opened by its address shows Sign in; signing in there opens that page', async () => {
  for (const [route, heading] of routes) {
    const page = await openPage(browser, app.base, route);
    try {
      await expectSignIn(page, `first load of #${route}`);
      await signIn(page, server.adminKey);
      await waitForHeading(page, heading);
      assert.equal(new URL(page.url()).hash, `#${route}`, `signing in on #${route} stays there`);
      await nav(page).getByRole('link', { name: 'Append', exact: true }).waitFor();
      assert.deepEqual(page.errors.filter((e) => !/status of 401/.test(e)), [], `#${route}`);
    } finally {
      await page.close();
    }
  }
});

test('signed out on a first load, every header link shows Sign in', async () => {
  const page = await openPage(browser, app.base, '/streams/order-1');
  try {
    await expectSignIn(page, 'first load');
    await clickEveryNavLink(page, 'first load');
    await signIn(page, server.adminKey);
    await waitForHeading(page, 'Consumer groups');
  } finally {
    await page.close();
  }
});

test('after a 401 (the key was revoked), every header link shows Sign in; signing in again opens the page', async () => {
  const { key } = (await api(server, 'POST', '/keys', { key: server.adminKey, json: { name: 'revoked-soon', roles: ['reader'] }, expect: 201 })).body;
  const page = await openPage(browser, app.base, '/streams');
  try {
    await signIn(page, key);
    await page.getByRole('table', { name: 'Streams' }).getByRole('link', { name: 'order-1', exact: true }).waitFor();
    await api(server, 'DELETE', '/keys/revoked-soon', { key: server.adminKey });
    // The next call answers 401: the consumer groups page asks for /consumers.
    await nav(page).getByRole('link', { name: 'Consumer groups', exact: true }).click();
    await expectSignIn(page, 'the 401 of /consumers');
    await clickEveryNavLink(page, 'after the 401');
    await nav(page).getByRole('link', { name: 'Streams', exact: true }).click();
    await signIn(page, server.adminKey);
    await page.getByRole('table', { name: 'Streams' }).getByRole('link', { name: 'order-1', exact: true }).waitFor();
    await nav(page).getByRole('link', { name: 'Append', exact: true }).waitFor();
  } finally {
    await page.close();
  }
});
