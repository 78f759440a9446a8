// launch.js starts headless Chromium for screenshot.js and session.js: a
// fresh profile per page, the network features off (this machine has no
// network), Debian's chromium or $MEMLAB_CHROMIUM.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

// launch returns a browser context with a viewport of width x height CSS
// pixels at device scale 1, and the function that closes it and removes
// its profile.
async function launch(width, height) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memlab-chromium-'));
  // A persistent context is how playwright takes a fresh --user-data-dir.
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.MEMLAB_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: Number(width), height: Number(height) },
    deviceScaleFactor: 1,
    timeout: 60000,
  });
  const close = async () => {
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  };
  return { ctx, close };
}

module.exports = { launch };
