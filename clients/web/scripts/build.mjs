// Builds the table companion into app/web/ (served by `python -m app` at /table/), or with
// --check into a temporary folder, and fails when that differs from the committed app/web/.
// The output is deterministic: the same sources and lock give the same bytes.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { faviconIco, iconSvg } from "./icon.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const committed = resolve(root, "../../app/web");
const check = process.argv.includes("--check");
const outIndex = process.argv.indexOf("--out");
const out = outIndex > 0 ? resolve(process.argv[outIndex + 1]) : check ? mkdtempSync(join(tmpdir(), "table-")) : committed;

const hash = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 10);

async function bundle(entry, loader) {
  const result = await build({
    entryPoints: [join(root, "src", entry)],
    bundle: true,
    minify: true,
    format: loader === "css" ? undefined : "esm",
    target: ["es2020", "chrome90", "safari14", "firefox90"],
    legalComments: "eof",
    write: false,
    charset: "utf8",
    alias: { "@vatican-report/client": resolve(root, "../typescript/src/index.ts") },
    logLevel: "warning",
  });
  return result.outputFiles[0].contents;
}

const js = await bundle("main.ts", "js");
const css = await bundle("app.css", "css");
const files = new Map();
const jsName = `app-${hash(js)}.js`;
const cssName = `app-${hash(css)}.css`;
files.set(jsName, js);
files.set(cssName, css);
const svg = Buffer.from(iconSvg());
const svgName = `icon-${hash(svg)}.svg`;
files.set(svgName, svg);
// Also under /table/ for a page served elsewhere (?api=); the service answers /favicon.ico
// with the same file.
files.set("favicon.ico", faviconIco());
const html = readFileSync(join(root, "src/index.html"), "utf8")
  .replace("%APP_JS%", jsName)
  .replace("%APP_CSS%", cssName)
  .replace("%ICON_SVG%", svgName);
files.set("index.html", Buffer.from(html));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const [name, bytes] of files) writeFileSync(join(out, name), bytes);

if (check) {
  const names = (dir) => readdirSync(dir).sort();
  let same = JSON.stringify(names(out)) === JSON.stringify(names(committed));
  if (same) {
    for (const name of names(out)) {
      if (!readFileSync(join(out, name)).equals(readFileSync(join(committed, name)))) same = false;
    }
  }
  rmSync(out, { recursive: true, force: true });
  if (!same) {
    console.error("app/web/ is not the build of clients/web: run `npm run build` in clients/web and commit app/web/");
    process.exit(1);
  }
  console.log("app/web/ is the current build");
} else {
  const size = [...files.values()].reduce((n, b) => n + b.length, 0);
  console.log(`built ${[...files.keys()].join(", ")} into ${out} (${Math.round(size / 1024)} KiB)`);
}
