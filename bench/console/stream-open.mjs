// The web console's budgets (issue 21; docs/BENCHMARKS.md, "The web
// console"), measured in Debian's Chromium against a real `indelible serve`
// on this machine:
//   - first load: the console's JS and CSS as served, gzipped (bytes);
//   - a stream page opens: from navigation to the first row of the page of a
//     1,000,000-event stream (or EVENTS events), cold (a new tab with an empty cache:
//     index.html, app.js, app.css, whoami, the head, one page of events) and
//     warm (a link followed inside an open console: the head and one page);
//   - in the same run, the server's own share: GET /streams/{s}/head and the
//     newest page (?direction=backward&limit=50) from Node, one at a time.
// N runs of each (default 15): median, p90, min.
//
//   scripts/bench-console.sh [N] [EVENTS]   (builds nothing; INDELIBLE_BIN picks the server)
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startServer, api, seedStream, binary } from '../../tests/console/lib/server.mjs';
import { launchBrowser, consoleUrl } from '../../tests/console/lib/browser.mjs';

const runs = Number(process.argv[2] ?? 15);
const COUNT = Number(process.argv[3] ?? 1_000_000);
const STREAM = 'big-1';

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, min ${sorted[0].toFixed(1)} ms (${values.length} runs)`;
}

function timedGet(server, target, headers = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const url = new URL(target, server.base);
    const req = http.get(url, { headers, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode, bytes }));
    });
    req.on('error', reject);
  });
}

function progress(text) {
  if (process.stderr.isTTY) process.stderr.write(`\r${text}\x1b[K`);
}

const server = await startServer();
const browser = await launchBrowser();
try {
  console.log(`server: ${binary}`);
  let t0 = performance.now();
  let seeded = 0;
  const ticker = setInterval(async () => {
    const head = await api(server, 'GET', `/streams/${STREAM}/head`).catch(() => null);
    seeded = head?.body?.version + 1 || seeded;
    progress(`seeding ${STREAM}: ${seeded} of ${COUNT} events`);
  }, 1000);
  await seedStream(server, STREAM, COUNT);
  clearInterval(ticker);
  progress('');
  console.log(`seeded ${COUNT} events of one stream over HTTP in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  let bundle = 0;
  for (const file of ['app.js', 'app.css']) bundle += (await timedGet(server, `/console/${file}`, { 'Accept-Encoding': 'gzip' })).bytes;
  console.log(`first load: app.js + app.css as served, gzipped: ${bundle} B (${(bundle / 1024).toFixed(1)} KB; budget 250 KB)`);

  const heads = [];
  const pages = [];
  for (let i = 0; i < runs; i++) {
    heads.push((await timedGet(server, `/streams/${STREAM}/head`)).ms);
    pages.push((await timedGet(server, `/streams/${STREAM}?direction=backward&limit=50`)).ms);
  }
  console.log(`server, GET head: ${summary(heads)}`);
  console.log(`server, GET the newest 50 events: ${summary(pages)}`);

  const row = (page) => page.getByRole('button', { name: `Show event ${COUNT - 1}`, exact: true });
  // The page's own clock: from the navigation's start (performance's time
  // origin) to the frame in which the first row exists; and when its
  // requests ended, from the Resource Timing entries.
  const firstRowInPage = (page) =>
    page.waitForFunction(
      (name) => (document.querySelector(`[aria-label="${name}"]`) ? performance.now() : null),
      `Show event ${COUNT - 1}`,
      { polling: 'raf', timeout: 30000 },
    );
  const cold = [];
  const inPage = [];
  const phases = { 'index.html': [], 'app.js': [], 'app.css': [], whoami: [], head: [], events: [] };
  for (let i = 0; i < runs; i++) {
    progress(`cold opens: ${i + 1} of ${runs}`);
    const page = await browser.context.newPage();
    // An empty cache each time: what a first visit costs.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    t0 = performance.now();
    const shown = firstRowInPage(page);
    await page.goto(consoleUrl(server.base, `/streams/${STREAM}`), { waitUntil: 'commit' });
    inPage.push(await (await shown).jsonValue());
    cold.push(performance.now() - t0);
    const ends = await page.evaluate(() => {
      const out = { 'index.html': performance.getEntriesByType('navigation')[0]?.responseEnd };
      for (const e of performance.getEntriesByType('resource')) {
        const path = new URL(e.name).pathname;
        const key = path.endsWith('/app.js') ? 'app.js' : path.endsWith('/app.css') ? 'app.css'
          : path === '/auth/whoami' ? 'whoami' : path.endsWith('/head') ? 'head'
          : path.startsWith('/streams/') ? 'events' : null;
        if (key && out[key] === undefined) out[key] = e.responseEnd;
      }
      return out;
    });
    for (const [key, value] of Object.entries(ends)) if (value !== undefined) phases[key]?.push(value);
    await page.close();
  }
  progress('');
  console.log(`stream page, cold (new tab, empty cache), measured by the test: ${summary(cold)}`);
  console.log(`stream page, cold, in the page (navigation start to the first row's frame): ${summary(inPage)}`);
  for (const [key, values] of Object.entries(phases))
    if (values.length) console.log(`  ${key.padEnd(10)} answered at ${summary(values)}`);

  const warm = [];
  const page = await browser.context.newPage();
  await page.goto(consoleUrl(server.base, '/streams'));
  await page.getByRole('heading', { level: 1, name: 'Streams' }).waitFor();
  for (let i = 0; i < runs; i++) {
    progress(`warm opens: ${i + 1} of ${runs}`);
    await page.goto(consoleUrl(server.base, '/streams'));
    await page.getByRole('link', { name: STREAM, exact: true }).waitFor();
    t0 = performance.now();
    await page.getByRole('link', { name: STREAM, exact: true }).click();
    await row(page).waitFor({ timeout: 30000 });
    warm.push(performance.now() - t0);
  }
  progress('');
  console.log(`stream page, warm (a link followed in an open console): ${summary(warm)}`);
} finally {
  await browser.close();
  await server.stop();
}
