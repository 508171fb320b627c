// gameState() and applyEvent() on scripted answers: the fold of each event type, the one
// read again on an unknown type or a gap, and what subscribers are told.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { VaticanReportClient, applyEvent, type Game, type GameSnapshot, type Report } from "../src/index.js";
import { FakeFetch, eventStream, fakeSleep, json } from "./fake.js";

const player = (id: string, faith = 0) => ({
  id,
  name: id,
  faith,
  report_victory_points: 0,
  leaders: [],
  excommunications: [],
});

function game(version: number, faith: Record<string, number> = {}): Game {
  return {
    id: "g1",
    version,
    seed: 1,
    expansions: ["base"],
    players_enter_faith: false,
    tiles: {},
    turn_order: ["p1", "p2"],
    players: [player("p1", faith["p1"] ?? 0), player("p2", faith["p2"] ?? 0)],
    reports: [1, 2, 3].map((period) => ({ period, status: "open", threshold: period + 2 })),
  } as unknown as Game;
}

function report(period: 1 | 2 | 3, faith: Record<string, number> = {}): Report {
  return {
    period,
    round: period * 2,
    threshold: period + 2,
    status: "open",
    tile_id: `${"I".repeat(period)}-1`,
    decisions: ["p1", "p2"].map((id) => ({ player_id: id, eligible: (faith[id] ?? 0) >= period + 2, choice: null })),
    outcomes: null,
    resolved_at: null,
  } as unknown as Report;
}

function snapshot(version: number, faith: Record<string, number> = {}): GameSnapshot {
  return { game: game(version, faith), reports: { 1: report(1, faith), 2: report(2, faith), 3: report(3, faith) }, version };
}

const at = "2026-12-01T20:00:00Z";
const faithSet = (seq: number, to: Record<string, number>) => ({
  seq,
  type: "faith_set" as const,
  at,
  data: { changes: Object.entries(to).map(([player_id, value]) => ({ player_id, from: 0, to: value, lost: 0 })) },
});

/** The answers of one read: the game, then its three reports, all at `version`. */
function read(version: number, faith: Record<string, number> = {}) {
  const etag = { ETag: `"${version}"` };
  return [
    json(200, game(version, faith), etag),
    json(200, report(1, faith), etag),
    json(200, report(2, faith), etag),
    json(200, report(3, faith), etag),
  ];
}

function sse(events: object[]): string {
  return events.map((e) => `id: ${(e as { seq: number }).seq}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

describe("applyEvent", () => {
  test("faith changes who is eligible in every open report; the snapshot given is left alone", () => {
    const before = snapshot(1);
    const after = applyEvent(before, faithSet(2, { p1: 4 }))!;
    assert.equal(after.version, 2);
    assert.equal(after.game.version, 2);
    assert.equal(after.game.players[0]?.faith, 4);
    assert.deepEqual(
      [1, 2, 3].map((p) => after.reports[p as 1 | 2 | 3].decisions[0]?.eligible),
      [true, true, false],
    );
    assert.equal(before.game.players[0]?.faith, 0);
    assert.equal(after.game.players[1], before.game.players[1]); // untouched parts are shared
  });

  test("a resolution pays its outcomes and excommunications, once, and resolves the report", () => {
    const outcome = (player_id: string, total: number, tile_id: string | null, faith_before: number) => ({
      player_id,
      faith_before,
      faith_after: 0,
      threshold: 3,
      outcome: tile_id ? "excommunicated" : "supported",
      excommunicated: tile_id !== null,
      tile_id,
      victory_points: { faith: total, sisto_iv: 0, total },
      rules: [],
      notes: [],
    });
    const start = applyEvent(snapshot(1), faithSet(2, { p1: 5, p2: 1 }))!;
    const after = applyEvent(start, {
      seq: 3,
      type: "report_resolved",
      at,
      data: { period: 1, default_choice: "support", outcomes: [outcome("p1", 5, null, 5), outcome("p2", 0, "I-1", 1)] },
    })!;
    assert.deepEqual(
      after.game.players.map((p) => [p.faith, p.report_victory_points, p.excommunications]),
      [
        [0, 5, []],
        [0, 0, [{ period: 1, tile_id: "I-1" }]],
      ],
    );
    assert.equal(after.reports[1].status, "resolved");
    assert.equal(after.reports[1].resolved_at, at);
    assert.equal(after.game.reports[0]?.status, "resolved");
    // Eligibility in a resolved report is as it was before it: p1 stays eligible at faith 0.
    assert.deepEqual(after.reports[1].decisions.map((d) => d.eligible), [true, false]);
  });

  test("an event type it does not know, or data it does not expect, is not folded in", () => {
    assert.equal(applyEvent(snapshot(1), { seq: 2, type: "round_advanced", at, data: {} }), null);
    assert.equal(applyEvent(snapshot(1), { seq: 2, type: "faith_set", at, data: {} }), null);
  });
});

describe("gameState", () => {
  test("read once, then each event folded in; an unknown type or a gap reads again, once each", async () => {
    const fake = new FakeFetch(
      ...read(1),
      (_call, init) =>
        eventStream(
          [sse([faithSet(2, { p1: 3 }), { seq: 3, type: "round_advanced", at, data: {} }, faithSet(5, { p2: 9 })])],
          { open: true, signal: init.signal ?? undefined },
        ),
      ...read(3, { p1: 3 }), // after the unknown type
      ...read(5, { p1: 3, p2: 9 }), // after the gap (no seq 4)
    );
    const sdk = new VaticanReportClient({ baseUrl: "http://t", token: "t", fetch: fake.fetch, sleep: fakeSleep().sleep });
    const state = sdk.gameState("g1");
    const told: string[] = [];
    state.subscribe((snap, change) => told.push(`${change.kind}${"reason" in change ? `:${change.reason}` : ""}@${snap.version}`));
    await state.ready;
    while ((state.current?.version ?? 0) < 5) await new Promise((resolve) => setTimeout(resolve, 5));
    state.close();
    await state.done;
    assert.deepEqual(told, ["read@1", "event@2", "reread:unknown-event@3", "reread:gap@5"]);
    assert.equal(state.rereads, 2);
    assert.deepEqual(state.current, snapshot(5, { p1: 3, p2: 9 }));
    // A late subscriber gets the current snapshot at once.
    let late: GameSnapshot | undefined;
    state.subscribe((snap) => (late = snap))();
    assert.equal(late, state.current);
    assert.equal(sdk.version("g1"), 5);
  });
});
