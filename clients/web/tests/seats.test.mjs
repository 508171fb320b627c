// Seats and the game's end, each screen in its own browser context against a live service:
// the host moves to a second browser with the recovery code and goes on there while the
// first is told its seat closed; a re-invited phone takes its seat and the old one is told;
// deletion asks first, then every screen says the game is gone; one link open on more phones
// than a seat is followed on tells the one pushed out; a screen left before it loaded never
// draws over the next one.
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

const ended = (page, reason) => page.locator(`#ended[data-reason="${reason}"]`).waitFor();

test("the host recovers the seat on a second browser and goes on there; the first is told its seat closed", async () => {
  const first = await open(browser, LAPTOP);
  const gameId = await createGame(first, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 7 });
  const links = await inviteLinks(first, 2);
  const anna = await open(browser, PHONE, links.p1);
  await expectLive(anna);
  await first.locator("details.recovery summary").click();
  const code = await first.locator("#recovery-code").innerText();
  assert.match(code, /^[A-Z0-9]{4}(-[A-Z0-9]{4}){7}$/);
  const recoverAt = await first.locator("#recovery-link").inputValue();
  assert.equal(recoverAt, `${BASE_URL}/table/#/recover/${gameId}`);

  // A second browser, which holds nothing of the game: a wrong code is refused, the right one
  // (typed in lower case) gives it the host seat.
  const second = await open(browser, LAPTOP, recoverAt);
  assert.equal(await second.locator("#recover-game").inputValue(), gameId);
  await second.fill("#recover-code", "AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH");
  await second.click("#recover");
  await second.locator("#error", { hasText: "does not know this code" }).waitFor();
  await second.fill("#recover-code", code.toLowerCase());
  await second.click("#recover");
  await second.waitForURL(new RegExp(`#/host/${gameId}$`));
  await expectLive(second);

  // The first screen's token is refused from now on: it says its seat closed.
  await ended(first, "seat-closed");
  assert.match(await first.locator("#ended").innerText(), /host seat is now on another device/);
  // The new host goes on, with a new recovery code (the one used is spent); the phone follows.
  await tapFaith(second, "p1", 6);
  await anna.locator('#my-faith[data-faith="6"]').waitFor();
  await second.locator("details.recovery summary").click();
  const next = await second.locator("#recovery-code").innerText();
  assert.notEqual(next, code);
  await second.click("#forget-code");
  await second.locator("#recovery-code").waitFor({ state: "detached" });
  for (const page of [first, second, anna]) assert.deepEqual(page.errors, []);
});

test("a re-invited phone takes the seat in a new browser; the old phone is told its seat closed", async () => {
  const host = await open(browser, LAPTOP);
  await createGame(host, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 8 });
  const before = await inviteLinks(host, 2);
  const lost = await open(browser, PHONE, before.p2);
  const anna = await open(browser, PHONE, before.p1);
  await expectLive(lost);
  await expectLive(anna);

  await host.locator('details.invite[data-player="p2"] summary').click();
  await host.click("#reinvite-p2");
  await host.waitForFunction(
    (old) => document.querySelector('input.invite-link[data-player="p2"]')?.value !== old,
    before.p2,
  );
  const link = await host.locator('input.invite-link[data-player="p2"]').inputValue();
  assert.notEqual(link, before.p2);
  // The invitation stays open with its new QR code.
  assert.ok(await host.locator('details.invite[data-player="p2"]').evaluate((d) => d.open));
  await host.locator('details.invite[data-player="p2"] svg.qr').waitFor();

  await ended(lost, "seat-closed");
  assert.match(await lost.locator("#ended").innerText(), /the host gave your seat to another phone/);
  // Opened again, the old phone's link still says so (its token is refused from the start),
  // in the language chosen.
  await lost.reload();
  await ended(lost, "seat-closed");
  await lost.click("#lang-it");
  await lost.locator("#ended", { hasText: "Il posto di questo telefono è chiuso" }).waitFor();
  const phone = await open(browser, PHONE, link);
  await expectLive(phone);
  await tapFaith(host, "p2", 4);
  await phone.locator('#my-faith[data-faith="4"]').waitFor();
  // Anna's seat is untouched.
  await anna.locator("#connection[data-state=\"live\"]").waitFor();
  assert.equal(await anna.locator("#ended").count(), 0);
  for (const page of [host, lost, phone, anna]) assert.deepEqual(page.errors, []);
});

test("deletion asks for confirmation, then every screen says the game is gone", async () => {
  const host = await open(browser, LAPTOP);
  const gameId = await createGame(host, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 9 });
  const links = await inviteLinks(host, 2);
  const phones = [await open(browser, PHONE, links.p1), await open(browser, PHONE, links.p2)];
  for (const phone of phones) await expectLive(phone);
  const token = decodeURIComponent(links.p1.split("/").pop());
  const status = async () =>
    (await fetch(`${BASE_URL}/v1/games/${gameId}`, { headers: { Authorization: `Bearer ${token}` } })).status;

  // Asked first; keeping the game changes nothing.
  await host.click("#delete-game");
  await host.locator("#delete-q", { hasText: "Delete this game for everyone?" }).waitFor();
  assert.equal(await status(), 200);
  await host.click("#delete-cancel");
  await host.locator("#delete-q").waitFor({ state: "detached" });
  assert.equal(await status(), 200);

  await host.click("#delete-game");
  await host.click("#delete-confirm");
  for (const page of [host, ...phones]) {
    await ended(page, "deleted");
    assert.match(await page.locator("#ended").innerText(), /deleted by its host/);
  }
  assert.equal(await status(), 404);
  // A phone opened again says the game is gone.
  await phones[0].reload();
  await ended(phones[0], "deleted");
  // The host's device forgot the game: the start screen no longer lists it.
  await host.click("#new-game");
  await host.locator("#player-0-name").waitFor();
  assert.equal(await host.locator(`a[href$="/host/${gameId}"]`).count(), 0);
  for (const page of [host, ...phones]) assert.deepEqual(page.errors, []);
});

test("one link opened on five phones, four followed: the one its newer twins push out says so, and may follow again", async () => {
  // MAX_STREAMS_PER_SEAT is 4 by default: the fifth phone's stream ends the oldest's, which
  // comes back and ends the next oldest's, until one is ended twice in a row and stops.
  const host = await open(browser, LAPTOP);
  await createGame(host, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 10 });
  const links = await inviteLinks(host, 2);
  const phones = [];
  for (let i = 0; i < 5; i++) {
    phones.push(await open(browser, PHONE, links.p2));
    await expectLive(phones[i]);
  }
  const pushedOut = await Promise.any(phones.map(async (phone) => (await ended(phone, "superseded"), phone)));
  assert.match(await pushedOut.locator("#ended").innerText(), /open on more devices than the service follows/);
  const following = phones.filter((phone) => phone !== pushedOut);
  await tapFaith(host, "p2", 3);
  for (const phone of following) await phone.locator('#my-faith[data-faith="3"]').waitFor();
  for (const phone of following) assert.equal(await phone.locator("#ended").count(), 0);
  // The one pushed out may follow again: it is live, with the change it missed.
  await pushedOut.click("#follow-again");
  await expectLive(pushedOut);
  await pushedOut.locator('#my-faith[data-faith="3"]').waitFor();
  for (const page of [host, ...phones]) assert.deepEqual(page.errors, []);
});

test("a screen left while it was still loading draws nothing over the next one", async () => {
  // The host screen of a game the service does not have is left for the recovery screen
  // before its first read is answered: that answer, when it comes, changes nothing on the page.
  const gameId = "0123456789abcdef0123456789abcdef";
  const page = await open(browser, PHONE, `${BASE_URL}/table/`);
  await page.locator("#player-0-name").waitFor();
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(`**/v1/games/${gameId}**`, async (route) => {
    await held;
    await route.continue();
  });
  const answered = page.waitForResponse((response) => response.url().includes(`/v1/games/${gameId}`));
  await page.goto(`${BASE_URL}/table/#/host/${gameId}/not-a-token`);
  await page.goto(`${BASE_URL}/table/#/recover/${gameId}`);
  await page.locator("#recover-code").waitFor();
  release();
  assert.equal((await answered).status(), 404);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  assert.equal(await page.locator("#ended").count(), 0, "the host screen drew over the recovery screen");
  await page.fill("#recover-code", "AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH");
  assert.deepEqual(page.errors, []);
});
