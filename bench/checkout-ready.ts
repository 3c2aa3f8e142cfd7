/**
 * The checkout in Chromium: time from the script's start to `paylink-ready`, against a bare `fetch`
 * of the same link JSON from the same page (the baseline), plus layout shift (CLS) while loading and
 * long tasks over 50 ms. Medians of repeated cold page loads against the real demo server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startDemo } from '../demo/server.js';
import { CHROME_PATH, CHROMIUM_ARGS } from '../test/support/chromium.mjs';

export interface ReadyResult {
  /** From the bundle's arrival (its resource timing responseEnd: the script starts) to `paylink-ready`. */
  readyMs: number;
  /** From inserting the <script> tag, download included. */
  readyFromScriptInsertMs: number;
  bareFetchMs: number;
  ratio: number;
  cls: number;
  longTasks: number;
  runs: number;
}

const OBSERVERS = `
  window.__cls = 0; window.__longTasks = 0;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
    .observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => { window.__longTasks += list.getEntries().length; })
    .observe({ type: 'longtask', buffered: true });
`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function runCheckoutReadyBench(runs = Number(process.env.BENCH_READY_RUNS ?? 15)): Promise<ReadyResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-ready-'));
  const demo = await startDemo({ port: 0, dataDir: dir, chain: 'sandbox' });
  const browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
  try {
    const slug = demo.slugs.simple;
    const elementPage = `<!doctype html><meta charset="utf-8"><body>
      <paylink-checkout slug="${slug}"></paylink-checkout>
      <script>${OBSERVERS}
        window.__t0 = performance.now();
        document.addEventListener('paylink-ready', () => {
          // "Script start": the moment the bundle finished arriving and began to run.
          const script = performance.getEntriesByName(new URL('/dist/paylink-checkout.js', location.href).href)[0];
          window.__fromInsert = performance.now() - window.__t0;
          window.__ready = performance.now() - script.responseEnd;
        });
        const s = document.createElement('script'); s.type = 'module'; s.src = '/dist/paylink-checkout.js'; document.body.append(s);
      </script>`;
    const barePage = `<!doctype html><meta charset="utf-8"><body><script>${OBSERVERS}
        window.__t0 = performance.now();
        fetch('/paylink/checkout/${slug}').then((r) => r.json()).then(() => { window.__ready = performance.now() - window.__t0; });
      </script>`;
    const measure = async (html: string) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route(`${demo.url}/bench.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
      await page.goto(`${demo.url}/bench.html`);
      await page.waitForFunction(() => (window as unknown as { __ready?: number }).__ready !== undefined, null, { timeout: 15_000 });
      await page.waitForTimeout(300); // let late layout shifts land
      const result = await page.evaluate(() => {
        const w = window as unknown as { __ready: number; __fromInsert?: number; __cls: number; __longTasks: number };
        return { ready: w.__ready, fromInsert: w.__fromInsert ?? w.__ready, cls: w.__cls, longTasks: w.__longTasks };
      });
      await context.close();
      return result;
    };
    await measure(elementPage); // warm the server's caches and the browser's compiler cache alike for both
    await measure(barePage);
    const element: Array<{ ready: number; fromInsert: number; cls: number; longTasks: number }> = [];
    const bare: number[] = [];
    for (let i = 0; i < runs; i++) {
      element.push(await measure(elementPage));
      bare.push((await measure(barePage)).ready);
    }
    const readyMs = Number(median(element.map((r) => r.ready)).toFixed(1));
    const bareFetchMs = Number(median(bare).toFixed(1));
    return {
      readyMs,
      readyFromScriptInsertMs: Number(median(element.map((r) => r.fromInsert)).toFixed(1)),
      bareFetchMs,
      ratio: Number((readyMs / bareFetchMs).toFixed(2)),
      cls: Number(Math.max(...element.map((r) => r.cls)).toFixed(4)),
      longTasks: Math.max(...element.map((r) => r.longTasks)),
      runs,
    };
  } finally {
    await browser.close();
    await demo.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table([await runCheckoutReadyBench()]);
