#!/usr/bin/env node
// Browser end-to-end driver for examples/web (the live table page).
//
//   node live-table.e2e.mjs <pageUrl>      e.g. http://localhost:7070/index.html?table=public.items
//
// Opens the page in headless Chromium (/usr/bin/chromium, or $CHROMIUM), waits until the table
// rendered its first snapshot (or until $READY_SELECTOR matches, e.g. '#status[data-state="error"]'
// for a page that must fail), prints READY, then reads commands from stdin, one per line:
//
//   expect-row <key> <col>=<value>   waits until <tr data-key="<key>"> has <td data-col="<col>">
//                                    with exactly that text (SQL NULL shows as "null"); prints OK
//   expect-no-row <key>              waits until no <tr data-key="<key>"> exists; prints OK
//   expect-text <selector> <text>    waits until the element <selector> (no spaces) contains <text>;
//                                    prints OK
//   expect-table <json>              waits until the rendered rows are exactly the keys of <json>
//                                    (an object key → {column: text}) with those cell texts; OK
//   freeze                           hides the tab (visibilityState "hidden", visibilitychange)
//                                    and stops its JavaScript; prints OK once it is stopped
//   thaw                             runs the JavaScript again and shows the tab (visibilitychange,
//                                    then the Page Lifecycle "resume" event); prints OK
//   quit                             closes the browser, exit code 0 (also on end of input)
//
// <key> is JSON of the primary-key values without spaces, as the page renders it: [1] or
// ["eu",7]. <value> is the rest of the line after the first "=" (may contain spaces).
// An expectation not met within 15 s (EXPECT_TIMEOUT_MS) prints "FAIL <reason>" and exits 1;
// so does a missing browser, at once. Diagnostics (browser console, page errors) go to stderr.
//
// Why freeze pauses the debugger: Debian Chromium's headless mode accepts CDP
// Page.setWebLifecycleState {state: "frozen"} but neither hides nor freezes the page (timers
// keep firing, no freeze event; checked with Chromium 156). Debugger.pause stops the page's
// JavaScript for real — timers, WebSocket events and rendering wait, while the network keeps
// receiving — which is what a frozen background tab or a sleeping laptop does to the client.
// The visibility changes around it are dispatched by the driver, as the browser would.
import { accessSync, constants } from 'node:fs';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const pageUrl = process.argv[2];
if (!pageUrl) {
  console.error('usage: node live-table.e2e.mjs <pageUrl>');
  process.exit(2);
}
const EXPECT_TIMEOUT_MS = Number(process.env.EXPECT_TIMEOUT_MS ?? 15_000);
const READY_TIMEOUT_MS = Number(process.env.READY_TIMEOUT_MS ?? 30_000);
const READY_SELECTOR = process.env.READY_SELECTOR ?? '#live[data-ready="true"]';

let browser;

async function fail(reason) {
  process.stdout.write(`FAIL ${reason}\n`);
  console.error(`live-table.e2e: ${reason}`);
  try {
    await browser?.close();
  } catch {
    // ignore
  }
  process.exit(1);
}

async function pageState(page) {
  return page.evaluate(() => ({
    status: document.querySelector('#status')?.dataset.state,
    message: document.querySelector('#message')?.textContent,
    rows: [...document.querySelectorAll('#live tbody tr')].slice(0, 20).map((tr) => tr.dataset.key),
  })).catch((e) => ({ error: String(e) }));
}

/** Dispatches what the browser would when a tab is hidden or shown again. */
function setVisibility(page, state) {
  return page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
    if (s === 'visible') document.dispatchEvent(new Event('resume'));
  }, state);
}

async function freeze(page, cdp) {
  await setVisibility(page, 'hidden');
  await cdp.send('Debugger.enable');
  const paused = new Promise((resolve) => cdp.once('Debugger.paused', resolve));
  await cdp.send('Debugger.pause'); // takes effect at the next JavaScript task (the client's timers)
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('not paused within 5 s')), 5_000));
  await Promise.race([paused, timeout]);
}

async function thaw(page, cdp) {
  await cdp.send('Debugger.resume');
  await cdp.send('Debugger.disable');
  await setVisibility(page, 'visible');
}

/** Rows as rendered: key → {column: text}. */
function renderedRows(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#live tbody tr')].map((tr) => [
    tr.dataset.key,
    Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.textContent])),
  ])));
}

async function main() {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    await fail(`no browser at ${executablePath}: install Debian's chromium (apt-get install chromium) or set CHROMIUM`);
  }
  browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage();
  page.on('console', (m) => console.error(`[browser ${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));

  await page.goto(pageUrl);
  try {
    await page.waitForSelector(READY_SELECTOR, { state: 'attached', timeout: READY_TIMEOUT_MS });
  } catch {
    await fail(`${READY_SELECTOR} not there within ${READY_TIMEOUT_MS} ms: ${JSON.stringify(await pageState(page))}`);
  }
  const cdp = await page.context().newCDPSession(page);
  process.stdout.write('READY\n');

  const rl = createInterface({ input: process.stdin, terminal: false });
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === '') continue;
    const sp1 = line.indexOf(' ');
    const cmd = sp1 < 0 ? line : line.slice(0, sp1);
    const rest = sp1 < 0 ? '' : line.slice(sp1 + 1).trim();
    if (cmd === 'quit') break;
    if (cmd === 'expect-row') {
      const sp2 = rest.indexOf(' ');
      const eq = rest.indexOf('=', sp2 + 1);
      if (sp2 < 0 || eq < 0) await fail(`bad command (expect-row <key> <col>=<value>): ${line}`);
      const key = rest.slice(0, sp2);
      const col = rest.slice(sp2 + 1, eq).trim();
      const value = rest.slice(eq + 1);
      try {
        await page.waitForFunction(([k, c, v]) => {
          const tr = document.querySelector(`#live tbody tr[data-key="${CSS.escape(k)}"]`);
          const td = tr?.querySelector(`td[data-col="${CSS.escape(c)}"]`);
          return td?.textContent === v;
        }, [key, col, value], { timeout: EXPECT_TIMEOUT_MS, polling: 50 });
      } catch {
        const actual = await page.evaluate(([k, c]) => {
          const tr = document.querySelector(`#live tbody tr[data-key="${CSS.escape(k)}"]`);
          if (!tr) return 'no such row';
          const td = tr.querySelector(`td[data-col="${CSS.escape(c)}"]`);
          return td ? `${c}=${td.textContent}` : `no column ${c}`;
        }, [key, col]).catch((e) => String(e));
        await fail(`row ${key} did not show ${col}=${value} within ${EXPECT_TIMEOUT_MS} ms (actual: ${actual}; page: ${JSON.stringify(await pageState(page))})`);
      }
      process.stdout.write('OK\n');
    } else if (cmd === 'expect-no-row') {
      const key = rest;
      if (!key) await fail(`bad command (expect-no-row <key>): ${line}`);
      try {
        await page.waitForFunction((k) => !document.querySelector(`#live tbody tr[data-key="${CSS.escape(k)}"]`),
          key, { timeout: EXPECT_TIMEOUT_MS, polling: 50 });
      } catch {
        await fail(`row ${key} still present after ${EXPECT_TIMEOUT_MS} ms (page: ${JSON.stringify(await pageState(page))})`);
      }
      process.stdout.write('OK\n');
    } else if (cmd === 'expect-text') {
      const sp2 = rest.indexOf(' ');
      if (sp2 < 0) await fail(`bad command (expect-text <selector> <text>): ${line}`);
      const [selector, text] = [rest.slice(0, sp2), rest.slice(sp2 + 1)];
      try {
        await page.waitForFunction(([sel, t]) => document.querySelector(sel)?.textContent.includes(t),
          [selector, text], { timeout: EXPECT_TIMEOUT_MS, polling: 50 });
      } catch {
        const actual = await page.evaluate((sel) => document.querySelector(sel)?.textContent ?? 'no such element',
          selector).catch((e) => String(e));
        await fail(`${selector} did not contain "${text}" within ${EXPECT_TIMEOUT_MS} ms (actual: ${JSON.stringify(actual)})`);
      }
      process.stdout.write('OK\n');
    } else if (cmd === 'expect-table') {
      let want;
      try {
        want = JSON.parse(rest);
      } catch (e) {
        await fail(`bad command (expect-table <json>): ${e.message}: ${line}`);
      }
      try {
        await page.waitForFunction((w) => {
          const trs = [...document.querySelectorAll('#live tbody tr')];
          if (trs.length !== Object.keys(w).length) return false;
          return trs.every((tr) => {
            const cells = w[tr.dataset.key];
            return cells !== undefined && Object.entries(cells).every(([c, v]) =>
              tr.querySelector(`td[data-col="${CSS.escape(c)}"]`)?.textContent === v);
          });
        }, want, { timeout: EXPECT_TIMEOUT_MS, polling: 50 });
      } catch {
        const actual = await renderedRows(page).catch((e) => String(e));
        await fail(`the table did not become ${JSON.stringify(want)} within ${EXPECT_TIMEOUT_MS} ms (actual: ${JSON.stringify(actual)}; page: ${JSON.stringify(await pageState(page))})`);
      }
      process.stdout.write('OK\n');
    } else if (cmd === 'freeze') {
      await freeze(page, cdp).catch((e) => fail(`cannot freeze the page: ${e.message}`));
      process.stdout.write('OK\n');
    } else if (cmd === 'thaw') {
      await thaw(page, cdp).catch((e) => fail(`cannot thaw the page: ${e.message}`));
      process.stdout.write('OK\n');
    } else {
      await fail(`unknown command: ${line}`);
    }
  }
  await browser.close();
  process.exit(0);
}

main().catch((e) => fail(e.stack ?? String(e)));
