// What a client written on @hey-api/openapi-ts's output (its own fetch client) does first.
import { calculateFinalScores, createGame, getGame } from "./generated/index.js";

export async function play(): Promise<string | undefined> {
  const created = await createGame({ body: { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 42 } });
  if (!created.data) return undefined;
  const game = await getGame({
    path: { game_id: created.data.game.id },
    headers: { Authorization: `Bearer ${created.data.host_token}` },
  });
  await calculateFinalScores({ body: { players: [{ id: "p1" }, { id: "p2", victory_points: 31 }] } });
  return game.data?.id;
}
