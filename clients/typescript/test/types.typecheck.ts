// Type-level tests: `npm test` compiles this file under --strict, so each line that must
// not compile carries @ts-expect-error, and tsc fails if it ever compiles.
import { isProblem, VaticanReportClient, type ProblemSlug } from "../src/index.js";

export const known: ProblemSlug = "version-mismatch";
// @ts-expect-error: not a slug of the contract
export const unknown: ProblemSlug = "no-such-slug";

export async function narrowing(client: VaticanReportClient, error: unknown): Promise<void> {
  // @ts-expect-error: isProblem takes only the contract's slugs
  isProblem(error, "no-such-slug");
  if (isProblem(error, "version-mismatch")) {
    const slug: "version-mismatch" = error.slug;
    void slug;
  }
  // Without If-None-Match a read cannot be "unchanged": its data is there.
  const game = await client.getGame("g1");
  void game.data.version;
  // With it, the reply must be narrowed first.
  const maybe = await client.getGame("g1", { ifNoneMatch: true });
  // @ts-expect-error: might be a 304 without data
  void maybe.data;
  if (!maybe.unchanged) void maybe.data.version;
  // A change's body is checked against the contract.
  // @ts-expect-error: faith must be a map of numbers
  await client.setFaith("g1", { faith: { p1: "five" } });
  // @ts-expect-error: a period is 1, 2 or 3
  await client.getReport("g1", 4);
}
