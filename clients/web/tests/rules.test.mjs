// Every rule id an answer names explains itself: on a phone a tap shows its text (in the
// page's language, within the screen) and another tap or a tap elsewhere hides it; on a
// laptop hovering shows it, and Escape hides it; a screen reader gets it as the id's
// description. Ids in the service's notes are explained too.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { measureFit } from "./audit.mjs";
import { LAPTOP, PHONE, createGame, expectLive, inviteLinks, launch, open, tapFaith } from "./support.mjs";

const TEXTS = JSON.parse(readFileSync(new URL("../src/rules.json", import.meta.url), "utf8"));

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Every rule id on the page, with the text its tooltip holds and whether it is shown. */
const refs = (page) =>
  page.$$eval(".rule-ref, code.rule", (els) =>
    els.map((el) => {
      const tip = el.querySelector(".rule-tip");
      const button = el.querySelector("button.rule");
      return {
        id: el.dataset.rule ?? el.textContent,
        explained: Boolean(tip && button && button.getAttribute("aria-describedby") === tip.id),
        text: tip?.textContent ?? null,
        shown: Boolean(tip && tip.getBoundingClientRect().width > 0),
      };
    }),
  );

/** Unfolds every `<details>` the locator (of folded ones) finds, one at a time. */
async function unfoldAll(folded) {
  while ((await folded.count()) > 0) await folded.first().locator("summary").click();
}

test("rule ids explain themselves on tap, hover and focus, in the page's language", async () => {
  const host = await open(browser, LAPTOP);
  await createGame(host, {
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }],
    tiles: { 1: "I-2", 2: "II-7", 3: "III-4" },
  });
  const links = await inviteLinks(host, 2);
  const phone = await open(browser, PHONE);
  // The tips are placed through the CSSOM, which the page's strict CSP allows (a style
  // attribute it would refuse): any violation is recorded.
  for (const page of [host, phone]) {
    await page.addInitScript(() => {
      window.cspViolations = [];
      document.addEventListener("securitypolicyviolation", (event) => window.cspViolations.push(event.violatedDirective));
    });
  }
  await host.reload();
  await expectLive(host);
  await phone.goto(links.p1);
  await expectLive(phone);
  await tapFaith(host, "p1", 15);
  await phone.click("#my-support");
  await host.locator('#decide-p1-support[aria-pressed="true"]').waitFor();
  await host.click("#resolve");

  // The phone: supporting with Sisto IV names R-REP-5, R-FT-1 and R-REP-8.
  await phone.locator('[data-result="1"] details > summary').click();
  const ref = phone.locator('[data-result="1"] .rule-ref[data-rule="R-REP-8"]');
  const tip = ref.locator(".rule-tip");
  assert.equal(await tip.isVisible(), false);
  await ref.locator("button").tap();
  await tip.waitFor({ state: "visible" });
  assert.equal(await tip.innerText(), TEXTS["R-REP-8"].en);
  const fit = await measureFit(phone, 360);
  assert.ok(fit.fits, `an open rule sticks out at 360 px: ${JSON.stringify(fit)}`);
  const box = await tip.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 360, JSON.stringify(box));
  await ref.locator("button").tap();
  await tip.waitFor({ state: "hidden" });
  await ref.locator("button").tap();
  await tip.waitFor({ state: "visible" });
  await phone.locator("#my-faith").tap();
  await tip.waitFor({ state: "hidden" });
  // In Italian, the Italian text; the page is redrawn, and the steps the reader unfolded
  // stay unfolded.
  await phone.click("#lang-it");
  await phone.locator('#lang-it[aria-pressed="true"]').waitFor();
  assert.equal(await phone.locator('[data-result="1"] details[open]').count(), 1);
  await phone.locator('[data-result="1"] .rule-ref[data-rule="R-REP-5"] button').tap();
  await phone.locator('[data-result="1"] .rule-ref[data-rule="R-REP-5"] .rule-tip', { hasText: TEXTS["R-REP-5"].it }).waitFor();

  // The host: hover shows, moving away hides, Escape hides a hovered one.
  const outcome = host.locator('[data-resolved="1"] li.outcome[data-player="p1"]');
  await outcome.locator("summary").click();
  const hostRef = outcome.locator('.rule-ref[data-rule="R-FT-1"]');
  await hostRef.locator("button").hover();
  await hostRef.locator(".rule-tip", { hasText: TEXTS["R-FT-1"].en }).waitFor();
  await host.mouse.move(0, 0);
  await hostRef.locator(".rule-tip").waitFor({ state: "hidden" });
  await hostRef.locator("button").hover();
  await hostRef.locator(".rule-tip").waitFor({ state: "visible" });
  await host.keyboard.press("Escape");
  await hostRef.locator(".rule-tip").waitFor({ state: "hidden" });
  await host.mouse.move(0, 0);
  // By keyboard: focus shows it.
  await outcome.locator("summary").focus();
  await host.keyboard.press("Tab");
  const first = await outcome.locator(".rule-ref").first().getAttribute("data-rule");
  assert.equal(await host.evaluate(() => document.activeElement?.textContent), first);
  await outcome.locator(`.rule-ref[data-rule="${first}"] .rule-tip`).waitFor({ state: "visible" });

  // The last report's notice and the final score's parts are explained too, and every id on
  // either screen has its text (none is left bare).
  await host.selectOption("#undecided", "support");
  await tapFaith(host, "p1", 4);
  await host.click("#resolve");
  await host.locator('[data-resolved="2"]').waitFor();
  // A live update redraws both screens and folds nothing either reader unfolded.
  await phone.locator('[data-result="2"]').waitFor();
  assert.equal(await phone.locator('[data-result="1"] details[open]').count(), 1);
  assert.equal(await outcome.locator("details[open]").count(), 1);
  // Nor does it close the rule the phone's reader pinned open (placed within the screen).
  const pinned = phone.locator('[data-result="1"] .rule-ref[data-rule="R-REP-5"]');
  assert.equal(await pinned.locator(".rule-tip", { hasText: TEXTS["R-REP-5"].it }).isVisible(), true);
  const pinnedBox = await pinned.locator(".rule-tip").boundingBox();
  assert.ok(pinnedBox.x >= 0 && pinnedBox.x + pinnedBox.width <= 360, JSON.stringify(pinnedBox));
  await tapFaith(host, "p1", 5);
  await host.locator('#report .rule-ref[data-rule="R-REP-6"]').waitFor();
  await phone.locator('#my-status .rule-ref[data-rule="R-REP-6"]').waitFor();
  await host.click("#resolve");
  await host.locator('[data-resolved="3"]').waitFor();
  await host.fill("#score-p1-victory_points", "40");
  await host.click("#scores-submit");
  await host.locator('#scores-result .rule-ref[data-rule="R-END-2"]').waitFor();
  await phone.locator('[data-result="3"]').waitFor();
  await unfoldAll(host.locator("details:not(.invite):not([open])"));
  await unfoldAll(phone.locator("details:not([open])"));
  for (const [page, lang] of [[host, "en"], [phone, "it"]]) {
    const found = await refs(page);
    assert.ok(found.length >= 5, JSON.stringify(found));
    for (const { id, explained, text } of found) {
      assert.ok(explained, `${id} is not explained`);
      assert.equal(text, TEXTS[id][lang], id);
    }
  }
  for (const page of [host, phone]) {
    assert.deepEqual(page.errors, []);
    assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  }
});
