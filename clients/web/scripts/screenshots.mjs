// Takes the screenshots in docs/screenshots/: the host's screen and a player's phone, each at
// 1280 px and 360 px wide, in the middle of a game. Uses Debian's Chromium (CHROMIUM to
// override) and the service at BASE_URL, or starts `python -m app` on a temporary SQLite
// database (PYTHON to choose the interpreter, default ../../.venv/bin/python).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const out = join(repo, "docs/screenshots");

async function freePort() {
  const server = net.createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

async function startService() {
  const port = await freePort();
  const python = process.env.PYTHON ?? join(repo, ".venv/bin/python");
  const db = join(mkdtempSync(join(tmpdir(), "table-shots-")), "shots.db");
  const child = spawn(python, ["-m", "app", "--port", String(port)], {
    cwd: repo,
    env: { ...process.env, DATABASE_URL: `sqlite:///${db}`, LOG_LEVEL: "warning" },
    stdio: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, stop: () => child.kill("SIGTERM") };
    } catch {
      // not up yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  child.kill("SIGKILL");
  throw new Error("the service did not start");
}

const service = process.env.BASE_URL ? { url: process.env.BASE_URL, stop() {} } : await startService();
process.env.BASE_URL = service.url;
const { LAPTOP, PHONE, createGame, expectLive, inviteLinks, launch, open, tapFaith } = await import("../tests/support.mjs");

const browser = await launch();
try {
  mkdirSync(out, { recursive: true });
  const host = await open(browser, LAPTOP);
  await createGame(host, {
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }, { name: "Dario" }],
    tiles: { 1: "I-2", 2: "II-7", 3: "III-4" },
  });
  const links = await inviteLinks(host, 4);
  const phone = await open(browser, PHONE, links.p1);
  await expectLive(phone);
  // Period I resolved; period II open, Faith entered, some players have chosen.
  for (const [id, faith] of [["p1", 5], ["p2", 2], ["p3", 9], ["p4", 3]]) await tapFaith(host, id, faith);
  await host.click("#decide-p1-support");
  await host.click("#decide-p3-refuse");
  await host.selectOption("#undecided", "support");
  await host.click("#resolve");
  await host.locator('[data-resolved="1"]').waitFor();
  for (const [id, faith] of [["p1", 6], ["p2", 4], ["p3", 9], ["p4", 1]]) await tapFaith(host, id, faith);
  await host.click("#decide-p3-support");
  await host.click("#pick-p1");
  await phone.locator('#my-faith[data-faith="6"]').waitFor();
  await phone.locator('[data-result="1"]').waitFor();
  await host.locator('[data-resolved="1"] li.outcome[data-player="p1"] summary').click();
  // A rule explained on each screen: hovered on the host's, tapped open on the phone.
  await host.locator('[data-resolved="1"] li.outcome[data-player="p1"] .rule-ref[data-rule="R-REP-5"] button').hover();
  await phone.locator('[data-result="1"] details > summary').click();
  await phone.locator('[data-result="1"] .rule-ref[data-rule="R-REP-8"] button').click();

  await host.screenshot({ path: join(out, "host-1280.png"), fullPage: true });
  await phone.setViewportSize({ width: 1280, height: 900 });
  await phone.screenshot({ path: join(out, "player-1280.png"), fullPage: true });
  await phone.setViewportSize({ width: 360, height: 740 });
  await phone.screenshot({ path: join(out, "player-360.png"), fullPage: true });
  await host.setViewportSize({ width: 360, height: 740 });
  await host.screenshot({ path: join(out, "host-360.png"), fullPage: true });
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  service.stop();
}
