// Fails when src/schema.ts is not what openapi-typescript makes of openapi/openapi.json
// today: the committed types must never drift from the committed contract.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
// `--committed <file>` compares another file (the tests use it to see the check fail).
const flag = process.argv.indexOf("--committed");
const committed = flag === -1 ? join(here, "src", "schema.ts") : process.argv[flag + 1];
const dir = mkdtempSync(join(tmpdir(), "vr-schema-"));
const fresh = join(dir, "schema.ts");
try {
  // The same command as `npm run generate`, with the output elsewhere.
  const { scripts } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
  const args = scripts.generate.split(/\s+/).slice(1);
  args[args.indexOf("--output") + 1] = fresh;
  const bin = join(here, "node_modules", "openapi-typescript", "bin", "cli.js");
  execFileSync(process.execPath, [bin, ...args], { cwd: here, stdio: ["ignore", "ignore", "inherit"] });
  if (readFileSync(fresh, "utf8") !== readFileSync(committed, "utf8")) {
    console.error(`${committed} is stale: run \`npm run generate\` in clients/typescript and commit it.`);
    process.exitCode = 1;
  } else {
    console.log(`${flag === -1 ? "src/schema.ts" : committed} matches openapi/openapi.json`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
