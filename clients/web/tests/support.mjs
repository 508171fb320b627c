// Shared harness of the browser tests: Debian's Chromium driven by playwright-core (no
// browser is downloaded), the service's address from BASE_URL, and page helpers.
import { chromium } from "playwright-core";
import { existsSync } from "node:fs";

export const BASE_URL = process.env.BASE_URL ?? "http://127.0.0.1:8000";
// Generous: the machine running CI is small and shared; nothing here measures speed.
export const TIMEOUT = Number(process.env.BROWSER_TIMEOUT_MS ?? 30_000);

export function chromiumPath() {
  const candidates = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(Boolean);
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`no Chromium at ${candidates.join(", ")}: apt-get install -y chromium`);
  return found;
}

export async function launch() {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

export const LAPTOP = { viewport: { width: 1280, height: 900 }, locale: "en-GB" };
export const PHONE = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: "en-GB" };

/** A new context and page; console errors and failed page loads are collected. */
export async function open(browser, options, url) {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(String(error)));
  page.requests = [];
  page.on("request", (request) => page.requests.push({ url: request.url(), auth: request.headers().authorization ?? "" }));
  if (url) await page.goto(url);
  return page;
}

export async function expectLive(page) {
  await page.locator('#connection[data-state="live"]').waitFor();
}

/** Fills the new-game form and creates the game; returns the game id from the address. */
export async function createGame(page, { players, tiles, seed, trackRounds = false }) {
  await page.goto(`${BASE_URL}/table/`);
  while ((await page.locator("fieldset.player-row").count()) < players.length) await page.click("#add-player");
  for (let n = await page.locator("fieldset.player-row").count(); n > players.length; n--) await page.click(`#player-${n - 1}-remove`);
  for (const [i, player] of players.entries()) {
    await page.fill(`#player-${i}-name`, player.name);
    for (const leader of player.leaders ?? []) await page.check(`#player-${i}-${leader}`);
  }
  if (tiles) {
    await page.check("#mode-pick");
    for (const [period, id] of Object.entries(tiles)) await page.selectOption(`#pick-${period}`, id);
  } else if (seed !== undefined) {
    await page.fill("#seed", String(seed));
  }
  if (trackRounds) await page.check("#track-rounds");
  await page.click("#create");
  await page.waitForURL(/#\/host\//);
  await expectLive(page);
  return decodeURIComponent(page.url().split("#/host/")[1]);
}

export async function inviteLinks(page, count) {
  const links = {};
  for (let i = 1; i <= count; i++) links[`p${i}`] = await page.locator(`input.invite-link[data-player="p${i}"]`).inputValue();
  return links;
}

/** The host taps a step of the Faith track for a player. */
export async function tapFaith(page, playerId, faith) {
  await page.click(`#pick-${playerId}`);
  await page.click(`#step-${faith}`);
  await page.locator(`li.player[data-player="${playerId}"] .faith-value[data-faith="${faith}"]`).waitFor();
}
