// A phone warns of the coming excommunication only when the report is due (src/due.ts): not
// at the start of a period, when every Faith is low, but once the host has entered Faith for
// the period (a game without rounds), or in the last round of the period and its report phase
// (a game that says its round). A phone opened later reads the same from the game's log.
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

const status = (phone, due) => phone.locator(`#my-status[data-due="${due}"]`);

test("a phone warns of the excommunication only once the report is due", async () => {
  const host = await open(browser, LAPTOP);
  await createGame(host, {
    players: [{ name: "Anna" }, { name: "Bruno", leaders: ["martin_lutero"] }, { name: "Carla" }],
    tiles: { 1: "I-2", 2: "II-7", 3: "III-4" },
  });
  const links = await inviteLinks(host, 3);
  const anna = await open(browser, PHONE, links.p1);
  const bruno = await open(browser, PHONE, links.p2);
  for (const phone of [anna, bruno]) await expectLive(phone);

  // The start of the game: Faith 0 is below 3, but nothing is due yet.
  await status(anna, "no").waitFor();
  assert.equal(await anna.locator("#my-status").innerText(), "This report, at the end of round 2, needs 3 Faith.");
  assert.equal(await anna.locator(".warn").count(), 0);
  await status(bruno, "no").waitFor();

  // The host enters Faith for period I (Carla's only): Anna and Bruno, still at 0, are due.
  await tapFaith(host, "p3", 9);
  await status(anna, "report").waitFor();
  assert.equal(await anna.locator("#my-status.warn").innerText(), "Your Faith is below 3: you will take the excommunication of this period.");
  // Martin Lutero is never excommunicated (R-REP-9): Bruno is told so instead.
  await status(bruno, "report").waitFor();
  assert.match(await bruno.locator("#my-status").innerText(), /Martin Lutero spares you/);
  // A phone opened now reads it from the log.
  await anna.reload();
  await expectLive(anna);
  await status(anna, "report").waitFor();

  // Period I resolved: Anna supported (Faith back to 0, below 4) and is not warned until the
  // host enters Faith for period II, on her phone as on one opened afresh.
  await tapFaith(host, "p1", 5);
  await host.selectOption("#undecided", "support");
  await host.click("#resolve");
  await anna.locator('[data-result="1"]').waitFor();
  await status(anna, "no").waitFor();
  assert.equal(await anna.locator("#my-status").innerText(), "This report, at the end of round 4, needs 4 Faith.");
  await anna.reload();
  await expectLive(anna);
  await anna.locator('[data-result="1"]').waitFor();
  await status(anna, "no").waitFor();
  await tapFaith(host, "p3", 10);
  await status(anna, "report").waitFor();
});

test("in a game that follows its rounds, the round decides", async () => {
  const host = await open(browser, LAPTOP);
  await createGame(host, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 5, trackRounds: true });
  const links = await inviteLinks(host, 2);
  const phone = await open(browser, PHONE, links.p1);
  await expectLive(phone);
  await host.locator('#round[data-round="1"][data-phase="play"]').waitFor();
  await status(phone, "no").waitFor();
  // Faith entered in round 1 does not make period I's report due.
  await tapFaith(host, "p1", 1);
  await phone.locator('#my-faith[data-faith="1"]').waitFor();
  await status(phone, "no").waitFor();
  // Round 2, the last before the report: a warning that Faith may still change.
  await host.click("#advance-round");
  await host.locator('#round[data-round="2"][data-phase="play"]').waitFor();
  await status(phone, "last_round").waitFor();
  assert.match(await phone.locator("#my-status").innerText(), /unless it rises this round/);
  // The report phase of round 2: the report is at hand.
  assert.equal(await host.locator("#advance-round").innerText(), "Next: the report phase of round 2");
  await host.click("#advance-round");
  await host.locator('#round[data-round="2"][data-phase="report"]').waitFor();
  await status(phone, "report").waitFor();
  // Undoing the advance takes the phone back to the last round's warning, with no reload.
  assert.equal(await host.locator("#undo").innerText(), "Undo: the report phase of round 2");
  await host.click("#undo");
  await status(phone, "last_round").waitFor();
  assert.deepEqual(phone.errors, []);
  assert.deepEqual(host.errors, []);
});
