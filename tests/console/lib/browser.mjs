// Chromium from apt (/usr/bin/chromium) driven by playwright-core, which
// never downloads a browser. One browser per test file, a fresh profile each
// run; pages open the console of a server and record console errors.
import { chromium } from 'playwright-core';
import axe from 'axe-core';
import { mkdtempSync, mkdirSync, rmSync, appendFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './server.mjs';

export const chromiumPath = process.env.INDELIBLE_CHROMIUM ?? '/usr/bin/chromium';

export const screenshotDir = path.resolve(process.env.INDELIBLE_CONSOLE_SCREENSHOTS ?? path.join(repoRoot, 'build/console-screenshots'));

export const desktop = { width: 1280, height: 800 };
export const phone = { width: 375, height: 812 };

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// A browser with a fresh user-data-dir; close() removes it.
export async function launchBrowser() {
  const profile = mkdtempSync(path.join(tmpdir(), 'indelible-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: desktop,
    colorScheme: 'light',
  });
  context.setDefaultTimeout(10000);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// The console's address for a server: the server itself, or (to try the tests
// before the binary serves the console) the app's dev server in front of it:
// CONSOLE_DEV_SERVER=.../console/dev-server.mjs CONSOLE_DIST=/tmp/console-dist.
export async function consoleFor(server) {
  const devServer = process.env.CONSOLE_DEV_SERVER;
  if (!devServer) return { base: server.base, async stop() {} };
  const dist = process.env.CONSOLE_DIST ?? '/tmp/console-dist';
  const child = spawn(process.execPath, [devServer, '--api', server.base, '--dist', dist, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the dev server did not start within 10 s:\n${output}`)), 10000);
    const onData = (chunk) => {
      output += chunk;
      const m = /(http:\/\/[0-9a-z.]+:[0-9]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the dev server exited (${code}):\n${output}`)));
  });
  return {
    base,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

// A new tab at `<base>/console/#<route>`. page.errors collects console errors
// and uncaught exceptions (a CSP refusal is a console error too).
export async function openPage(browser, base, route, { viewport = desktop, colorScheme = 'light' } = {}) {
  const page = await browser.context.newPage();
  page.errors = [];
  page.faviconErrors = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const where = m.location()?.url;
    // Chromium asks for /favicon.ico by itself; pages.test.mjs checks that once.
    if (where?.endsWith('/favicon.ico')) return page.faviconErrors.push(m.text());
    page.errors.push(`console: ${m.text()}${where ? ` (${where})` : ''}`);
  });
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  await page.setViewportSize(viewport);
  await page.emulateMedia({ colorScheme });
  await page.goto(consoleUrl(base, route));
  return page;
}

export function consoleUrl(base, route) {
  return `${base}/console/#${route}`;
}

// The page's <h1>, once it shows `name` (a string matches exactly).
export async function waitForHeading(page, name, timeout = 10000) {
  const h1 = page.getByRole('heading', { level: 1, name, exact: typeof name === 'string' });
  await h1.waitFor({ state: 'visible', timeout });
  return h1;
}

// axe-core's violations of impact serious or critical, as readable lines.
// axe is evaluated through the DevTools protocol, not a <script> tag, so the
// page's Content-Security-Policy stays as the server sent it.
export async function seriousViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axe.source);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')})`);
}

export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

// A figure the script prints at the end (scripts/test-console.sh).
export function recordBudget(line) {
  mkdirSync(screenshotDir, { recursive: true });
  appendFileSync(path.join(screenshotDir, 'budgets.txt'), line + '\n');
  console.log(`budget: ${line}`);
}
