// The package carries the repository's licence: LICENSE is copied next to package.json
// when the package is packed (npm pack, npm publish), not kept twice in the repository.
import { copyFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

copyFileSync(fileURLToPath(new URL("../../../LICENSE", import.meta.url)), fileURLToPath(new URL("../LICENSE", import.meta.url)));
