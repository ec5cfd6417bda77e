#!/usr/bin/env node
// Browser end-to-end driver for the server's operations console (/console, served from the
// server's jar), used by tests/.../BrowserConsoleTest through ConsolePage.java.
//
//   node console.e2e.mjs
//
// Starts headless Chromium (/usr/bin/chromium, or $CHROMIUM), prints READY, then reads one JSON
// command per line on stdin and answers one line each ("OK ..." or "FAIL <reason>"):
//
//   {"cmd":"open","url":U,"user":N,"password":P}  a fresh browser context (HTTP Basic credentials
//                                                 when user is given), goes to U; "OK <status>"
//                                                 (401 when the login is refused)
//   {"cmd":"click","selector":S}                  clicks the element S (a real mouse click); OK
//   {"cmd":"expect-text","selector":S,"text":T}   waits until the first element S has exactly the
//                                                 text T (trimmed); OK
//   {"cmd":"expect-contains","selector":S,"text":T}  waits until the text of S contains T; OK
//   {"cmd":"expect-min","selector":S,"attr":A,"min":N}  waits until attribute A of S is a
//                                                 number >= N (e.g. a chart's data-points); OK
//   {"cmd":"text","selector":S}                   "OK <JSON of the trimmed text of S>"
//   {"cmd":"screenshot","path":F}                 a PNG of the whole page to F; OK
//   {"cmd":"quit"}                                closes the browser, exit code 0 (also at EOF)
//
// A wait not met within EXPECT_TIMEOUT_MS (15 s) answers "FAIL <reason, with what the page
// shows>" and the driver goes on. Browser console lines and page errors go to stderr.
import { accessSync, constants } from 'node:fs';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const EXPECT_TIMEOUT_MS = Number(process.env.EXPECT_TIMEOUT_MS ?? 15_000);

let browser;
let context;
let page;

function answer(line) {
  process.stdout.write(`${line.replace(/\n/g, ' ')}\n`);
}

async function textOf(selector) {
  return page.evaluate((s) => document.querySelector(s)?.textContent?.trim() ?? null, selector)
    .catch((e) => `(${e.message})`);
}

async function pageState() {
  return page.evaluate(() => ({
    url: location.href,
    status: document.querySelector('#status')?.textContent,
    message: document.querySelector('#message')?.textContent,
    body: document.body?.innerText?.slice(0, 300),
  })).catch((e) => ({ error: String(e) }));
}

async function waitFor(description, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, { timeout: EXPECT_TIMEOUT_MS, polling: 100 });
    return 'OK';
  } catch {
    return `FAIL ${description} within ${EXPECT_TIMEOUT_MS} ms (page: ${JSON.stringify(await pageState())})`;
  }
}

async function run(c) {
  switch (c.cmd) {
    case 'open': {
      await context?.close();
      context = await browser.newContext({
        viewport: { width: 1360, height: 900 },
        ...(c.user ? { httpCredentials: { username: c.user, password: c.password ?? '' } } : {}),
      });
      page = await context.newPage();
      page.on('console', (m) => console.error(`[browser ${m.type()}] ${m.text()}`));
      page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
      // a refused login ends the navigation with ERR_INVALID_AUTH_CREDENTIALS once Playwright
      // gives up answering the challenge: the status is then that of the last document response
      let status = 0;
      page.on('response', (r) => {
        if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) status = r.status();
      });
      try {
        const response = await page.goto(c.url);
        return `OK ${response?.status() ?? status}`;
      } catch (e) {
        if (/ERR_INVALID_AUTH_CREDENTIALS/.test(e.message) && status) return `OK ${status}`;
        throw e;
      }
    }
    case 'click':
      await page.click(c.selector, { timeout: EXPECT_TIMEOUT_MS });
      return 'OK';
    case 'expect-text': {
      const r = await waitFor(`${c.selector} did not show exactly ${JSON.stringify(c.text)}`,
        ([s, t]) => document.querySelector(s)?.textContent?.trim() === t, [c.selector, c.text]);
      return r === 'OK' ? r : `${r} (actual: ${JSON.stringify(await textOf(c.selector))})`;
    }
    case 'expect-contains': {
      const r = await waitFor(`${c.selector} did not contain ${JSON.stringify(c.text)}`,
        ([s, t]) => (document.querySelector(s)?.textContent ?? '').includes(t), [c.selector, c.text]);
      return r === 'OK' ? r : `${r} (actual: ${JSON.stringify(await textOf(c.selector))})`;
    }
    case 'expect-min':
      return waitFor(`${c.selector}[${c.attr}] did not reach ${c.min}`,
        ([s, a, n]) => Number(document.querySelector(s)?.getAttribute(a)) >= n, [c.selector, c.attr, c.min]);
    case 'text':
      return `OK ${JSON.stringify(await textOf(c.selector))}`;
    case 'screenshot':
      await page.screenshot({ path: c.path, fullPage: true });
      return 'OK';
    default:
      return `FAIL unknown command: ${JSON.stringify(c)}`;
  }
}

async function main() {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    answer(`FAIL no browser at ${executablePath}: install Debian's chromium (apt-get install chromium) or set CHROMIUM`);
    process.exit(1);
  }
  browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  answer('READY');
  const rl = createInterface({ input: process.stdin, terminal: false });
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === '') continue;
    let c;
    try {
      c = JSON.parse(line);
    } catch (e) {
      answer(`FAIL not JSON: ${e.message}`);
      continue;
    }
    if (c.cmd === 'quit') break;
    try {
      answer(await run(c));
    } catch (e) {
      answer(`FAIL ${c.cmd}: ${e.message}`);
    }
  }
  await browser.close();
  process.exit(0);
}

main().catch((e) => {
  answer(`FAIL ${e.stack ?? e}`);
  process.exit(1);
});
