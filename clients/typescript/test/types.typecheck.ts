// Type-level tests: `npm test` compiles this file under --strict, so each line that must
// not compile carries @ts-expect-error, and tsc fails if it ever compiles.
import { isProblem, VaticanReportClient, type GameEvent, type GameSnapshot, type ProblemSlug } from "../src/index.js";

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

// A problem's members are typed by its slug, from the contract's <Slug>ProblemMembers.
export function members(error: unknown): void {
  if (isProblem(error, "version-mismatch")) {
    const version: number = error.problem.current_version;
    void version;
  }
  if (isProblem(error, "decisions-pending")) {
    const pending: string[] = error.problem.pending;
    void pending;
  }
  if (isProblem(error, "validation-error")) {
    const where: Array<string | number> | undefined = error.problem.errors[0]?.loc;
    void where;
  }
  if (isProblem(error, "not-found")) {
    // @ts-expect-error: a not-found carries no current_version to count on
    const version: number = error.problem.current_version;
    void version;
  }
}

// An event's data is typed by its type: a UI folding events itself gets the fields.
export function events(state: GameSnapshot, event: GameEvent): number {
  if (event.type === "faith_set") return event.data.changes.length + state.version;
  // @ts-expect-error: leaders_set has no changes
  if (event.type === "leaders_set") return event.data.changes.length;
  return state.version;
}
