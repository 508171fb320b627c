// The host resolves a report, then undoes it: every phone shows the resolution undone (the
// report open again, Faith as it was), with no reload; redo resolves it again. Each undo and
// redo button says what it will take, from the game's log. No screen reads the game again
// after a change, its own or another device's: the SDK's game state folds every event in.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { LAPTOP, PHONE, createGame, expectLive, inviteLinks, launch, open, tapFaith } from "./support.mjs";

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** The reads of the game or of a report (not the events) a page has asked for so far. */
const reads = (page, gameId) =>
  page.requests.filter((r) => new RegExp(`/v1/games/${gameId}(/reports/\\d)?$`).test(r.url.split("?")[0])).length;

test("an undone resolution shows on every phone, live; redo resolves it again", async () => {
  const host = await open(browser, LAPTOP);
  const gameId = await createGame(host, {
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }],
    tiles: { 1: "I-2", 2: "II-7", 3: "III-4" },
  });
  assert.equal(await host.locator("#undo").innerText(), "Nothing to undo");
  assert.ok(await host.locator("#undo").isDisabled());
  const links = await inviteLinks(host, 3);
  const phones = {};
  for (const [id, link] of Object.entries(links)) {
    phones[id] = await open(browser, PHONE, link);
    await expectLive(phones[id]);
  }
  const pages = [host, ...Object.values(phones)];
  const readsAtStart = pages.map((page) => reads(page, gameId));
  // The first read of each screen: the game and its three reports.
  for (const count of readsAtStart) assert.ok(count >= 4, `only ${count} first reads`);

  await tapFaith(host, "p1", 5);
  await tapFaith(host, "p2", 2);
  await tapFaith(host, "p3", 9);
  assert.equal(await host.locator("#undo").innerText(), "Undo: Carla's Faith entry");
  await phones.p1.click("#my-support");
  await phones.p3.click("#my-refuse");
  await host.locator('#decide-p3-refuse[aria-pressed="true"]').waitFor();
  await host.locator("#undo", { hasText: "Undo: Carla's decision for period I" }).waitFor();
  await host.click("#resolve");
  await host.locator('[data-resolved="1"]').waitFor();
  await Promise.all(Object.values(phones).map((phone) => phone.locator('[data-result="1"]').waitFor()));
  await phones.p1.locator('#my-faith[data-faith="0"]').waitFor();
  await phones.p3.locator(".excoms", { hasText: "I-2" }).waitFor();

  // The undo button names the resolution; undoing it re-opens the report on every screen.
  assert.equal(await host.locator("#undo").innerText(), "Undo: the resolution of period I");
  await host.click("#undo");
  await host.locator('[data-resolved="1"]').waitFor({ state: "detached" });
  await host.locator("#resolve").waitFor();
  for (const phone of Object.values(phones)) {
    await phone.locator('[data-result="1"]').waitFor({ state: "detached" });
    await phone.locator("#notice", { hasText: "The host undid the resolution of period I: the report is open again" }).waitFor();
  }
  // Faith, choices and tiles are as they were before the resolution.
  await phones.p1.locator('#my-faith[data-faith="5"]').waitFor();
  await phones.p1.locator('#my-support[aria-pressed="true"]').waitFor();
  await phones.p3.locator(".excoms").waitFor({ state: "detached" });
  await host.locator('li.player[data-player="p1"] .faith-value[data-faith="5"]').waitFor();
  assert.equal(await host.locator("#undo").innerText(), "Undo: Carla's decision for period I");
  assert.equal(await host.locator("#redo").innerText(), "Redo: the resolution of period I");

  // Redo: the same resolution again, on every screen.
  await host.click("#redo");
  await host.locator('[data-resolved="1"]').waitFor();
  for (const phone of Object.values(phones)) await phone.locator('[data-result="1"]').waitFor();
  await phones.p1.locator("#notice", { hasText: "The host redid the resolution of period I" }).waitFor();
  await phones.p1.locator('#my-faith[data-faith="0"]').waitFor();
  assert.equal(await host.locator("#redo").innerText(), "Nothing to redo");

  // Undo a Faith change made with the + button: the button names it, the phone follows.
  await host.click("#more-p2");
  await phones.p2.locator('#my-faith[data-faith="3"]').waitFor();
  assert.equal(await host.locator("#undo").innerText(), "Undo: Bruno's Faith change (+1)");
  await host.click("#undo");
  await phones.p2.locator('#my-faith[data-faith="2"]').waitFor();
  await phones.p2.locator("#notice", { hasText: "The host undid Bruno's Faith change (+1)." }).waitFor();

  // Nobody read the game or a report again after the first read: every change, the
  // host's own included, came as an event folded into the state.
  assert.deepEqual(pages.map((page) => reads(page, gameId)), readsAtStart);
  for (const page of pages) assert.deepEqual(page.errors, []);
});
