import { VaticanReportClient, isProblem } from "../src/index.js";
declare function render(game: unknown): void;
declare function apply(event: unknown): Promise<void>;
declare const lastSeqIAlreadyHave: number;
export async function example(): Promise<void> {

  const service = new VaticanReportClient({ baseUrl: "http://127.0.0.1:8000" });
  const { data } = await service.createGame({ players: [{ name: "Anna" }, { name: "Bruno" }], seed: 42 });
  const host = service.withToken(data.host_token);
  await host.setFaith(data.game.id, { faith: { p1: 5, p2: 2 } });
  const follower = host.follow(data.game.id, { onEvent: (event) => console.log(event.seq, event.type) });

}
