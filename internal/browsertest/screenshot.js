// screenshot.js renders one page in headless Chromium and writes a PNG
// screenshot of its viewport: node screenshot.js URL WIDTH HEIGHT OUT.png
// It is driven by the Go package internal/browsertest (Screenshot). The
// flags (launch.js) keep Chromium off the network, which this machine does not have.
'use strict';
const { launch } = require('./launch');

async function main() {
  const [url, w, h, out] = process.argv.slice(2);
  if (!url || !w || !h || !out) {
    console.error('usage: node screenshot.js URL WIDTH HEIGHT OUT.png');
    process.exit(2);
  }
  const { ctx, close } = await launch(w, h);
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    await page.evaluate(() => document.fonts ? document.fonts.ready : null);
    await page.screenshot({ path: out, fullPage: false });
  } finally {
    await close();
  }
}

main().catch((err) => { console.error(String(err && err.stack || err)); process.exit(1); });
