// Copies the TypeScript examples of the READMEs into readme-examples/, so that `npm test`
// type-checks them against the client like any other code: an example that no longer
// compiles fails the tests. The blocks of one README run on, in order, in one function.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const out = join(here, "readme-examples");
const readmes = { sdk: join(here, "README.md"), service: join(here, "..", "..", "README.md") };
// What the examples leave to the reader's application.
const ambient = [
  "declare function render(game: unknown): void;",
  "declare function apply(event: unknown): Promise<void>;",
  "declare const lastSeqIAlreadyHave: number;",
];

rmSync(out, { recursive: true, force: true });
mkdirSync(out);
for (const [name, path] of Object.entries(readmes)) {
  const blocks = [...readFileSync(path, "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  if (blocks.length === 0) throw new Error(`${path} has no \`\`\`ts example`);
  const lines = blocks.join("\n").split("\n");
  const imports = lines.filter((line) => line.startsWith("import "));
  const body = lines.filter((line) => !line.startsWith("import "));
  const source = [
    ...imports.map((line) => line.replace('"@vatican-report/client"', '"../src/index.js"')),
    ...ambient,
    "export async function example(): Promise<void> {",
    ...body.map((line) => (line ? `  ${line}` : line)),
    "}",
    "",
  ].join("\n");
  writeFileSync(join(out, `${name}.ts`), source);
}
