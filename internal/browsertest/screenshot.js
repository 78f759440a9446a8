// screenshot.js renders one page in headless Chromium and writes a PNG
// screenshot of its viewport: node screenshot.js URL WIDTH HEIGHT OUT.png
// It is driven by the Go package internal/browsertest (Screenshot). The
// flags keep Chromium off the network, which this machine does not have.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

async function main() {
  const [url, w, h, out] = process.argv.slice(2);
  if (!url || !w || !h || !out) {
    console.error('usage: node screenshot.js URL WIDTH HEIGHT OUT.png');
    process.exit(2);
  }
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memlab-chromium-'));
  // A persistent context is how playwright takes a fresh --user-data-dir.
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.MEMLAB_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: Number(w), height: Number(h) },
    deviceScaleFactor: 1,
    timeout: 60000,
  });
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    await page.evaluate(() => document.fonts ? document.fonts.ready : null);
    await page.screenshot({ path: out, fullPage: false });
  } finally {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(String(err && err.stack || err)); process.exit(1); });
