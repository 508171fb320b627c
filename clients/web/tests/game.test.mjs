// A host and three players, each in their own browser context (phones at 360 px), play a
// whole game through the three Vatican Reports against a live service. Nobody reloads: every
// screen follows the game over the live stream.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE_URL, LAPTOP, PHONE, createGame, expectLive, inviteLinks, launch, open, tapFaith } from "./support.mjs";

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("a host and three phones play three reports live", async () => {
  const host = await open(browser, LAPTOP);
  const gameId = await createGame(host, {
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }],
    tiles: { 1: "I-2", 2: "II-7", 3: "III-4" },
  });
  assert.match(gameId, /^[0-9a-f]{32}$/);
  // The tiles the table picked, with their texts from the service.
  await host.locator('.tile[data-period="1"] .tile-id', { hasText: "I-2" }).waitFor();
  await host.locator('.tile[data-period="3"] .tile-id', { hasText: "III-4" }).waitFor();

  const links = await inviteLinks(host, 3);
  for (const link of Object.values(links)) {
    assert.ok(link.startsWith(`${BASE_URL}/table/#/play/${gameId}/`), link);
  }
  const phones = {};
  for (const [id, link] of Object.entries(links)) {
    const phone = await open(browser, PHONE, link);
    await expectLive(phone);
    // The token was stored and dropped from the address bar (and its history entry).
    assert.equal(phone.url(), `${BASE_URL}/table/#/play/${gameId}/${id}`);
    phones[id] = phone;
  }
  // Bruno reads Italian: the page's own words switch, and the tile's text is the service's.
  const tile = await (await fetch(`${BASE_URL}/v1/excommunication-tiles/I-2`)).json();
  await phones.p2.click("#lang-it");
  await phones.p2.locator("#my-report-h", { hasText: "Rapporto in Vaticano, periodo I" }).waitFor();
  assert.equal(await phones.p2.locator(".small-tile .tile-text").innerText(), tile.text.it);
  assert.equal(await phones.p2.getAttribute("html", "lang"), "it");
  assert.equal(await phones.p1.locator(".small-tile .tile-text").innerText(), tile.text.en);

  const faithOn = (id, n) => phones[id].locator(`#my-faith[data-faith="${n}"]`).waitFor();
  const resultOn = (id, period) => phones[id].locator(`[data-result="${period}"] .big-result`).getAttribute("data-outcome");

  // Period I: the host taps the track; each phone shows its own Faith live.
  await tapFaith(host, "p1", 5);
  await tapFaith(host, "p2", 2);
  await tapFaith(host, "p3", 9);
  await Promise.all([faithOn("p1", 5), faithOn("p2", 2), faithOn("p3", 9)]);
  // What supporting pays (5 Faith = 5 VP, Sisto IV adds 5) is on the host's and Anna's screens.
  await host.locator('li.decision[data-player="p1"]', { hasText: "supporting pays 10 VP" }).waitFor();
  await phones.p1.getByText("Supporting the Church gives 10 VP").waitFor();
  await phones.p2.locator("#my-status", { hasText: "sotto 3" }).waitFor();
  await phones.p1.click("#my-support");
  await phones.p3.click("#my-refuse");
  await host.locator('#decide-p1-support[aria-pressed="true"]').waitFor();
  await host.locator('#decide-p3-refuse[aria-pressed="true"]').waitFor();
  await host.click("#resolve");
  await host.locator('[data-resolved="1"] li.outcome[data-player="p1"][data-outcome="supported"]').waitFor();
  await Promise.all(["p1", "p2", "p3"].map((id) => phones[id].locator('[data-result="1"]').waitFor()));
  assert.equal(await resultOn("p1", 1), "supported");
  assert.notEqual(await resultOn("p2", 1), "supported");
  assert.notEqual(await resultOn("p3", 1), "supported");
  await faithOn("p1", 0); // supporting sets Faith back to 0
  await phones.p3.locator(".excoms", { hasText: "I-2" }).waitFor();
  // Steps and rule ids, on demand.
  await host.locator('[data-resolved="1"] li.outcome[data-player="p1"] summary').click();
  await host.locator('[data-resolved="1"] li.outcome[data-player="p1"] .rule', { hasText: "R-REP" }).first().waitFor();

  // Period II: the host chooses for Carla, who hands her phone over; Anna refuses.
  await tapFaith(host, "p1", 4);
  await tapFaith(host, "p2", 6);
  await tapFaith(host, "p3", 9);
  await phones.p1.locator("#my-refuse").click();
  await phones.p2.locator("#my-support").click();
  await host.click("#decide-p3-support");
  await host.locator('#decide-p3-support[aria-pressed="true"]').waitFor();
  await host.locator('#decide-p1-refuse[aria-pressed="true"]').waitFor();
  await host.click("#resolve");
  await Promise.all(["p1", "p2", "p3"].map((id) => phones[id].locator('[data-result="2"]').waitFor()));
  assert.equal(await resultOn("p2", 2), "supported");
  assert.equal(await resultOn("p3", 2), "supported");
  assert.notEqual(await resultOn("p1", 2), "supported");
  await phones.p1.locator(".excoms", { hasText: "II-7" }).waitFor();

  // Period III: no decisions (R-REP-6); undecided players need none.
  await tapFaith(host, "p1", 4);
  await tapFaith(host, "p2", 7);
  // By keyboard: the step is a labelled button, and focus stays on it after the redraw.
  await host.click("#pick-p3");
  await host.getByRole("button", { name: "Set Carla's Faith to 1 (1 VP)" }).focus();
  await host.keyboard.press("Enter");
  await host.locator('li.player[data-player="p3"] .faith-value[data-faith="1"]').waitFor();
  assert.equal(await host.evaluate(() => document.activeElement?.id), "step-1");
  await host.click("#resolve");
  await Promise.all(["p1", "p2", "p3"].map((id) => phones[id].locator('[data-result="3"]').waitFor()));
  assert.notEqual(await resultOn("p1", 3), "supported"); // 4 < 5
  assert.equal(await resultOn("p2", 3), "supported");
  await phones.p1.locator(".excoms", { hasText: "III-4" }).waitFor();
  await host.getByText("All three reports are resolved").waitFor();

  // The calculators use the stored excommunications: Bruno holds I-2 (one coin less).
  await host.selectOption("#gain-player", "p2");
  await host.fill("#gain-coins", "3");
  await host.click("#gain-submit");
  await host.locator("#gain-result", { hasText: "+2 coins" }).waitFor();
  await host.click("#action-submit");
  await host.locator("#action-result", { hasText: "Value" }).waitFor();

  // The final score, part by part: Anna's III-4 costs her VP.
  await host.fill("#score-p1-victory_points", "40");
  await host.fill("#score-p2-victory_points", "31");
  await host.fill("#score-p3-victory_points", "26");
  await host.click("#scores-submit");
  await host.locator('#scores-result li[data-player="p1"] .rule').first().waitFor();
  assert.equal(await host.locator("#scores-result > ol > li").count(), 3);

  for (const page of [host, ...Object.values(phones)]) assert.deepEqual(page.errors, []);
  // Each phone followed the game over the event stream, with its token in the Authorization
  // header only: no address any page asked for carries a token.
  const secrets = Object.values(links).map((link) => decodeURIComponent(link.split("/").pop()));
  for (const [id, phone] of Object.entries(phones)) {
    const stream = phone.requests.filter((r) => r.url.includes(`/v1/games/${gameId}/events/stream`));
    assert.ok(stream.length >= 1, `${id} never opened the stream`);
    assert.equal(stream[0].auth, `Bearer ${secrets[Number(id.slice(1)) - 1]}`);
  }
  for (const page of [host, ...Object.values(phones)]) {
    for (const request of page.requests) {
      for (const secret of secrets) assert.ok(!request.url.includes(secret), `token in ${request.url}`);
    }
  }
});
