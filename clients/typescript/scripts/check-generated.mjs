// Fails when src/schema.ts is not what openapi-typescript makes of openapi/openapi.json
// today: the committed types must never drift from the committed contract.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const committed = join(here, "src", "schema.ts");
const dir = mkdtempSync(join(tmpdir(), "vr-schema-"));
const fresh = join(dir, "schema.ts");
try {
  const bin = join(here, "node_modules", "openapi-typescript", "bin", "cli.js");
  execFileSync(process.execPath, [bin, join(here, "..", "..", "openapi", "openapi.json"), "--output", fresh], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (readFileSync(fresh, "utf8") !== readFileSync(committed, "utf8")) {
    console.error("src/schema.ts is stale: run `npm run generate` in clients/typescript and commit it.");
    process.exit(1);
  }
  console.log("src/schema.ts matches openapi/openapi.json");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
