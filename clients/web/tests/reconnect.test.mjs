// A phone whose connection drops shows "Reconnecting…", and once the network is back it is
// live again and shows what changed meanwhile, without a reload.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE_URL, LAPTOP, PHONE, createGame, expectLive, inviteLinks, launch, open, tapFaith } from "./support.mjs";
import { startProxy } from "./proxy.mjs";

let browser;
let proxy;
before(async () => {
  browser = await launch();
  proxy = await startProxy(BASE_URL);
});
after(async () => {
  await browser?.close();
  await proxy?.close();
});

test("a dropped connection shows reconnecting, then recovers live", async () => {
  const host = await open(browser, LAPTOP);
  const gameId = await createGame(host, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 42 });
  const links = await inviteLinks(host, 2);
  // Anna's phone reaches the service through the proxy (the same service, another address).
  const phone = await open(browser, PHONE, links.p1.replace(BASE_URL, proxy.url));
  await expectLive(phone);
  await tapFaith(host, "p1", 3);
  await phone.locator('#my-faith[data-faith="3"]').waitFor();

  proxy.drop();
  await phone.locator('#connection[data-state="reconnecting"]').waitFor();
  assert.equal(await phone.locator("#connection").innerText(), "Reconnecting…");
  // The game moves on while the phone is cut off.
  await tapFaith(host, "p1", 6);
  await tapFaith(host, "p2", 4);

  proxy.restore();
  await expectLive(phone);
  await phone.locator('#my-faith[data-faith="6"]').waitFor();
  assert.ok(phone.url().endsWith(`#/play/${gameId}/p1`));
  assert.deepEqual(phone.errors, []);
});

test("where the stream is not served, a phone follows the game by long-polling", async () => {
  const host = await open(browser, LAPTOP);
  await createGame(host, { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 7 });
  const links = await inviteLinks(host, 2);
  const phone = await open(browser, PHONE);
  // As behind a proxy that does not pass event streams: the SDK falls back to long-polls.
  await phone.route("**/events/stream*", (route) =>
    route.fulfill({ status: 404, contentType: "application/problem+json", body: '{"type":"/problems/not-found","title":"Not found","status":404}' }),
  );
  await phone.goto(links.p2);
  await expectLive(phone);
  await tapFaith(host, "p2", 8);
  await phone.locator('#my-faith[data-faith="8"]').waitFor();
  assert.ok(phone.requests.some((r) => /\/events\?.*wait=/.test(r.url)), "no long-poll was made");
  assert.deepEqual(phone.errors, []);
});
