// The page served from another origin: a service that lists that origin in CORS_ORIGINS
// serves it fully (a game created and followed live); one that does not is refused by the
// browser, and the page says it cannot reach the service.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { BASE_URL, LAPTOP, expectLive, launch, open } from "./support.mjs";

const WEB = resolve(fileURLToPath(import.meta.url), "../../../../app/web");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** The built page from a plain static server on its own origin. */
async function staticSite(port = 0) {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname.replace(/^\/+/, "") || "index.html";
    try {
      const body = await readFile(join(WEB, path.replace(/\.\./g, "")));
      res.writeHead(200, { "Content-Type": TYPES[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((done) => server.listen(port, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("an origin the service does not list is refused", async () => {
  const site = await staticSite();
  try {
    assert.notEqual(site.url, process.env.ALLOWED_ORIGIN);
    const page = await open(browser, LAPTOP, `${site.url}/index.html?api=${encodeURIComponent(BASE_URL)}`);
    await page.getByRole("alert").filter({ hasText: "Cannot reach the service." }).waitFor();
    const refused = await page.evaluate(
      (api) => fetch(`${api}/v1/faith-track`).then(() => "answered", (error) => error.name),
      BASE_URL,
    );
    assert.equal(refused, "TypeError");
  } finally {
    await site.close();
  }
});

test("an origin listed in CORS_ORIGINS plays a live game", { skip: !process.env.ALLOWED_ORIGIN && "ALLOWED_ORIGIN not set" }, async () => {
  const site = await staticSite(Number(new URL(process.env.ALLOWED_ORIGIN).port));
  try {
    const page = await open(browser, LAPTOP, `${site.url}/index.html?api=${encodeURIComponent(BASE_URL)}`);
    for (const [i, name] of ["Anna", "Bruno"].entries()) await page.fill(`#player-${i}-name`, name);
    await page.click("#player-2-remove");
    await page.click("#create");
    await page.waitForURL(/#\/host\//);
    await expectLive(page);
    await page.click("#pick-p2");
    await page.click("#step-4");
    await page.locator('li.player[data-player="p2"] .faith-value[data-faith="4"]').waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await site.close();
  }
});
