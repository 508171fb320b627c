import { VaticanReportClient, isProblem } from "../src/index.js";
declare function render(game: unknown): void;
declare function apply(event: unknown): Promise<void>;
declare const lastSeqIAlreadyHave: number;
export async function example(): Promise<void> {

  const service = new VaticanReportClient({ baseUrl: "https://rules.example.org" });

  // Create: the tokens are in this answer only. Keep them.
  const created = await service.createGame({
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }],
    seed: 42,
  });
  const gameId = created.data.game.id;
  const host = service.withToken(created.data.host_token);
  const anna = service.withToken(created.data.player_tokens["p1"]!);

  await host.setFaithz(gameId, { faith: { p1: 5, p2: 2, p3: 9 } });
  await anna.setReportDecision(gameId, 1, "p1", { choice: "support" });

  try {
    await host.resolveReport(gameId, 1);
  } catch (error) {
    if (isProblem(error, "decisions-pending")) console.log("still to choose:", error.problem.pending);
    else if (isProblem(error, "version-mismatch")) await host.getGame(gameId); // read, then retry
    else throw error;
  }

  const reply = await anna.getGame(gameId, { ifNoneMatch: true });
  if (!reply.unchanged) render(reply.data);

  const follower = anna.follow(gameId, {
    after: lastSeqIAlreadyHave, // 0 (the default) replays the whole log first
    onEvent: async (event) => {
      // { seq, type, at, data }: in seq order, never twice
      await apply(event);
    },
    onError: (error) => console.warn("reconnecting:", error),
  });
  // ... later
  follower.close();
  await follower.done; // rejects on 401/403/404, or when onEvent throws

}
