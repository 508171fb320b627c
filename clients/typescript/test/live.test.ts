// A whole game played with the SDK against a real `python -m app`, whose URL the pytest
// wrapper (tests/clients/test_typescript_sdk.py) passes in VATICAN_REPORT_URL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { VaticanReportClient, isProblem, type GameCreate, type GameEvent } from "../src/index.js";

const baseUrl = process.env["VATICAN_REPORT_URL"];
const skip = baseUrl ? false : "VATICAN_REPORT_URL is not set (the pytest wrapper sets it)";

test("a full game: create, faith, decisions, three reports, gains, final scores, events", { skip }, async () => {
  const anyone = new VaticanReportClient({ baseUrl: baseUrl! });

  const tiles = await anyone.listExcommunicationTiles({ period: 1 });
  assert.ok(tiles.data.tiles.every((tile) => tile.period === 1));

  // Create, with a key we keep: sending it again replays the first answer, nothing twice.
  const body: GameCreate = {
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }],
    seed: 42,
  };
  const key = randomUUID();
  const created = await anyone.createGame(body, { idempotencyKey: key });
  assert.equal(created.status, 201);
  assert.equal(created.replayed, false);
  const again = await anyone.createGame(body, { idempotencyKey: key });
  assert.equal(again.replayed, true);
  assert.deepEqual(again.data, created.data);

  const gameId = created.data.game.id;
  assert.deepEqual(
    Object.values(created.data.game.tiles).map((tile) => tile.id),
    ["I-6", "II-3", "III-7"],
  );
  // The host's device and Anna's phone: two clients, each knowing only what it has seen.
  const host = new VaticanReportClient({ baseUrl: baseUrl!, token: created.data.host_token });
  const anna = new VaticanReportClient({ baseUrl: baseUrl!, token: created.data.player_tokens["p1"]! });
  assert.equal((await host.getGame(gameId)).etag, '"1"');

  await assert.rejects(anyone.withToken("not-a-token").getGame(gameId), (e: unknown) => isProblem(e, "unauthorized"));

  // Period I: faith, decisions (each device keeps its own ETag), resolution.
  const faith = await host.setFaith(gameId, { faith: { p1: 5, p2: 2, p3: 9 } });
  assert.equal(faith.etag, '"2"');
  await anna.getReport(gameId, 1);
  const annaChose = await anna.setReportDecision(gameId, 1, "p1", { choice: "support" });
  assert.equal(annaChose.etag, '"3"');
  await assert.rejects(
    anna.setReportDecision(gameId, 1, "p2", { choice: "support" }),
    (e: unknown) => isProblem(e, "forbidden") && e.status === 403,
  );
  // The host last saw version 2: its change is refused until it reads the game again.
  const stale = await host.setReportDecision(gameId, 1, "p3", { choice: "refuse" }).catch((e: unknown) => e);
  assert.ok(isProblem(stale, "version-mismatch"));
  assert.equal(stale.problem.current_version, 3);
  const unchangedBefore = await host.getGame(gameId, { ifNoneMatch: '"3"' });
  assert.equal(unchangedBefore.unchanged, true);
  await host.getGame(gameId);
  await host.setReportDecision(gameId, 1, "p3", { choice: "refuse" });

  const first = await host.resolveReport(gameId, 1);
  assert.equal(first.status, 201);
  const outcomes = Object.fromEntries((first.data.outcomes ?? []).map((o) => [o.player_id, o]));
  assert.deepEqual(outcomes["p1"]?.victory_points, { faith: 5, sisto_iv: 5, total: 10 });
  assert.equal(outcomes["p2"]?.outcome, "excommunicated");
  assert.equal(outcomes["p2"]?.tile_id, "I-6");
  assert.equal(outcomes["p3"]?.faith_after, 9);
  assert.equal(outcomes["p3"]?.excommunicated, true);
  await assert.rejects(host.resolveReport(gameId, 1), (e: unknown) => isProblem(e, "report-resolved"));

  // Nothing changed since the resolution: a conditional read is "unchanged", not an error.
  const unchanged = await anna.getGame(gameId, { ifNoneMatch: first.etag! });
  assert.equal(unchanged.unchanged, true);

  // Periods II and III.
  await host.setFaith(gameId, { faith: { p1: 4, p2: 4, p3: 12 } });
  await assert.rejects(host.resolveReport(gameId, 2), (e: unknown) => {
    return isProblem(e, "decisions-pending") && Array.isArray(e.problem.pending) && e.problem.pending.length > 0;
  });
  const second = await host.resolveReport(gameId, 2, { default_choice: "support" });
  assert.equal(second.status, 201);
  await host.setFaith(gameId, { faith: { p1: 3, p2: 15, p3: 7 } });
  // The answer to the first try is lost on the way back (the resolution did happen): the
  // client sends the same call again with the same key and gets the first answer replayed.
  let lost = 0;
  const unlucky = new VaticanReportClient({
    baseUrl: baseUrl!,
    token: created.data.host_token,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (url.endsWith("/reports/3/resolution") && lost++ === 0) throw new TypeError("connection reset");
      return response;
    },
    sleep: async () => undefined,
  });
  const third = await unlucky.resolveReport(gameId, 3, {}, { ifMatch: host.etag(gameId)! });
  assert.equal(lost, 2);
  assert.equal(third.status, 201);
  assert.equal(third.replayed, true);
  const last = Object.fromEntries((third.data.outcomes ?? []).map((o) => [o.player_id, o]));
  assert.equal(last["p1"]?.outcome, "excommunicated");
  assert.equal(last["p2"]?.victory_points.faith, 30);

  const state = (await anna.getGame(gameId)).data;
  const players = Object.fromEntries(state.players.map((p) => [p.id, p]));
  assert.equal(players["p1"]?.report_victory_points, 10 + 4 + 5 + 3);
  assert.deepEqual(
    players["p1"]?.excommunications.map((e) => e.tile_id),
    ["III-7"],
  );
  assert.ok(state.players.every((p) => p.faith === 0));
  assert.equal(state.version, 1 + 3 + 2 + 3);

  // Gains under the stored excommunications; the final scores.
  const gains = await anna.calculatePlayerGains(gameId, "p1", {
    gains: [{ resources: { coins: 5 }, source: { kind: "action_space", name: "Market coins" } }],
  });
  assert.equal(gains.data.gains.length, 1);
  assert.ok("coins" in gains.data.total);
  const scores = await host.calculateGameFinalScores(gameId, {
    players: [
      { id: "p1", victory_points: 40, military_points: 7 },
      { id: "p2", victory_points: 35 },
      { id: "p3", victory_points: 30 },
    ],
  });
  assert.deepEqual(
    scores.data.players.map((p) => p.player_id).sort(),
    ["p1", "p2", "p3"],
  );
  assert.ok(scores.data.players.every((p) => Number.isInteger(p.total) && p.parts.length > 0));

  // The event log, read page by page and followed live: the same seqs, 1..version.
  const log = await anna.listGameEvents(gameId, { after: 0, limit: 100 });
  assert.deepEqual(
    log.data.events.map((e) => e.seq),
    Array.from({ length: state.version }, (_, i) => i + 1),
  );
  assert.equal(log.data.events[0]?.type, "game_created");
  assert.equal(log.data.events.filter((e) => e.type === "report_resolved").length, 3);
  const followed: GameEvent[] = [];
  const follower = anna.follow(gameId, {
    after: 2,
    onEvent: (event) => {
      followed.push(event);
      if (event.seq === state.version) follower.close();
    },
  });
  const timer = setTimeout(() => follower.close(), 60_000); // a hang fails below, not forever
  await follower.done;
  clearTimeout(timer);
  assert.deepEqual(
    followed.map((e) => e.seq),
    log.data.events.slice(2).map((e) => e.seq),
  );
  assert.deepEqual(followed, log.data.events.slice(2));
});

test("follow() hears a change made by another client through the event stream", { skip }, async () => {
  const anyone = new VaticanReportClient({ baseUrl: baseUrl! });
  const created = await anyone.createGame({ players: [{ name: "Anna" }, { name: "Bruno" }], seed: 7 });
  const gameId = created.data.game.id;
  const host = anyone.withToken(created.data.host_token);
  const bruno = anyone.withToken(created.data.player_tokens["p2"]!);

  const heard: GameEvent[] = [];
  let resolveHeard: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (resolveHeard = resolve));
  const follower = bruno.follow(gameId, {
    after: 1,
    onEvent: (event) => {
      heard.push(event);
      resolveHeard();
    },
  });
  const timer = setTimeout(() => follower.close(), 60_000); // a hang fails below, not forever
  // The change is made once the stream is open: it can only arrive live.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await host.setFaith(gameId, { faith: { p1: 4, p2: 1 } });
  await arrived;
  assert.equal(follower.mode, "stream");
  follower.close();
  await follower.done.catch(() => undefined);
  clearTimeout(timer);
  assert.deepEqual(
    heard.map((e) => [e.seq, e.type]),
    [[2, "faith_set"]],
  );
});
