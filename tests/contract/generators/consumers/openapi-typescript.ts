// What a client written on openapi-typescript + openapi-fetch's output does first: create
// a game with only the fields it means (every field with a default left out), read it.
import createClient from "openapi-fetch";

import type { components, paths } from "./generated/schema.js";

const service = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

export async function play(): Promise<string | undefined> {
  const created = await service.POST("/v1/games", {
    body: { players: [{ name: "Anna" }, { name: "Bruno" }], seed: 42 },
  });
  if (!created.data) return created.error?.type;
  const game = await service.GET("/v1/games/{game_id}", {
    params: { path: { game_id: created.data.game.id } },
    headers: { Authorization: `Bearer ${created.data.host_token}` },
  });
  const scores: components["schemas"]["FinalScoresCalculation"] = {
    players: [{ id: "p1" }, { id: "p2", victory_points: 31 }],
  };
  await service.POST("/v1/calculations/final-scores", { body: scores });
  return game.data?.id;
}
