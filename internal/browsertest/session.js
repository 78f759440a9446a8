// session.js drives one page of headless Chromium through a list of steps
// and reports what the page showed: node session.js STEPS.json OUT.json
// STEPS.json is {"width": W, "height": H, "steps": [step...]}, a step one of
//   {"goto": URL}                    load a page
//   {"click": SELECTOR}              click (a link or button; waits for the load)
//   {"check": SELECTOR}              tick a radio button or checkbox
//   {"fill": SELECTOR, "value": V}   type V into an input
//   {"select": SELECTOR, "value": V} choose an option of a <select>
//   {"press": KEY}                   press a key on the page (waits for a load it starts)
//   {"wait": MS}                     wait MS milliseconds (a page that updates itself)
//   {"text": true}                   record the page's URL and visible text
//   {"eval": EXPR}                   evaluate a JavaScript expression in the page, record its value as JSON
//   {"shot": FILE}                   a full-page PNG screenshot
// OUT.json is a list with, per step, {"url": ..., "text": ..., "value": ...}
// (text for text steps only, value for eval steps only). It is driven by
// the Go package internal/browsertest (Session); launch.js keeps Chromium
// off the network.
'use strict';
const fs = require('fs');
const { launch } = require('./launch');
async function settle(page) {
  await page.waitForLoadState('load', { timeout: 30000 });
}

async function main() {
  const [stepsFile, out] = process.argv.slice(2);
  if (!stepsFile || !out) {
    console.error('usage: node session.js STEPS.json OUT.json');
    process.exit(2);
  }
  const spec = JSON.parse(fs.readFileSync(stepsFile, 'utf8'));
  const { ctx, close } = await launch(spec.width || 1280, spec.height || 800);
  const results = [];
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    for (const [i, s] of spec.steps.entries()) {
      const where = `step ${i + 1} ${JSON.stringify(s)}`;
      try {
        if (s.goto) {
          await page.goto(s.goto, { waitUntil: 'load', timeout: 30000 });
        } else if (s.click) {
          await Promise.all([page.waitForNavigation({ timeout: 30000 }).catch(() => null), page.click(s.click, { timeout: 10000 })]);
          await settle(page);
        } else if (s.check) {
          await page.check(s.check, { timeout: 10000 });
        } else if (s.fill) {
          await page.fill(s.fill, s.value || '', { timeout: 10000 });
        } else if (s.select) {
          await page.selectOption(s.select, s.value || '', { timeout: 10000 });
        } else if (s.press) {
          await Promise.all([page.waitForNavigation({ timeout: 5000 }).catch(() => null), page.keyboard.press(s.press)]);
          await settle(page);
        } else if (s.wait) {
          await page.waitForTimeout(s.wait);
        } else if (s.shot) {
          await page.screenshot({ path: s.shot, fullPage: true });
        }
        const r = { url: page.url() };
        if (s.text) r.text = await page.evaluate(() => document.body ? document.body.innerText : '');
        if (s.eval) r.value = JSON.stringify(await page.evaluate(s.eval));
        results.push(r);
      } catch (err) {
        results.push({ url: page.url(), error: where + ': ' + String(err && err.message || err) });
        break;
      }
    }
  } finally {
    await close();
  }
  fs.writeFileSync(out, JSON.stringify(results));
}

main().catch((err) => { console.error(String(err && err.stack || err)); process.exit(1); });
