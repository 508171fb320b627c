// gameState() and applyEvent() on scripted answers: the fold of each event type, the one
// read again on an unknown type or a gap, and what subscribers are told.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  SupersededError,
  VaticanReportClient,
  applyEvent,
  applyToHistory,
  EMPTY_HISTORY,
  type Game,
  type GameSnapshot,
  type Report,
  type StateEnd,
} from "../src/index.js";
import { FakeFetch, eventStream, fakeSleep, json, problem } from "./fake.js";

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
    assert.equal(applyEvent(snapshot(1), { seq: 2, type: "table_flipped", at, data: {} }), null);
    assert.equal(applyEvent(snapshot(1), { seq: 2, type: "faith_set", at, data: {} }), null);
  });
});

describe("applyEvent: Faith changes, rounds, undo and redo, seat tokens", () => {
  const outcome = (player_id: string, total: number, tile_id: string | null, faith_before: number) => ({
    player_id,
    faith_before,
    faith_after: tile_id ? faith_before : 0,
    threshold: 3,
    outcome: tile_id ? "excommunicated" : "supported",
    excommunicated: tile_id !== null,
    tile_id,
    victory_points: { faith: total, sisto_iv: 0, total },
    rules: [],
    notes: [],
  });
  const resolved = (seq: number) => ({
    seq,
    type: "report_resolved" as const,
    at,
    data: { period: 1 as const, default_choice: "support" as const, outcomes: [outcome("p1", 5, null, 5), outcome("p2", 0, "I-1", 1)] },
  });

  test("a Faith change sets the player's faith to what the track kept, and eligibility follows", () => {
    const after = applyEvent(snapshot(1), {
      seq: 2,
      type: "faith_changed",
      at,
      data: { player_id: "p2", delta: 4, from: 0, to: 4, lost: 0 },
    })!;
    assert.equal(after.game.players[1]?.faith, 4);
    assert.deepEqual([1, 2, 3].map((p) => after.reports[p as 1 | 2 | 3].decisions[1]?.eligible), [true, true, false]);
    const stranger = { seq: 2, type: "faith_changed", at, data: { player_id: "p9", delta: 1, from: 0, to: 1, lost: 0 } };
    assert.equal(applyEvent(snapshot(1), stranger), null);
  });

  test("a round advance sets the game's round", () => {
    const start = { ...snapshot(1), game: { ...snapshot(1).game, round: { number: 2, phase: "play" } } } as GameSnapshot;
    const after = applyEvent(start, {
      seq: 2,
      type: "round_advanced",
      at,
      data: { from: { number: 2, phase: "play" }, to: { number: 2, phase: "report" } },
    })!;
    assert.deepEqual(after.game.round, { number: 2, phase: "report" });
  });

  test("an undone resolution puts the players and the re-opened report in place; a redo resolves it again", () => {
    const start = applyEvent(snapshot(1), faithSet(2, { p1: 5, p2: 1 }))!;
    const paid = applyEvent(start, resolved(3))!;
    const reopened = { ...start.reports[1], decisions: start.reports[1].decisions };
    const undone = applyEvent(paid, {
      seq: 4,
      type: "change_undone",
      at,
      data: { seq: 3, type: "report_resolved", players: start.game.players, turn_order: ["p1", "p2"], report: reopened, round: null },
    })!;
    assert.equal(undone.version, 4);
    assert.deepEqual(undone.game.players, start.game.players);
    assert.equal(undone.reports[1].status, "open");
    assert.equal(undone.reports[1].outcomes, null);
    assert.equal(undone.game.reports[0]?.status, "open");
    const redone = applyEvent(undone, {
      seq: 5,
      type: "change_redone",
      at,
      data: { seq: 3, type: "report_resolved", players: paid.game.players, turn_order: ["p1", "p2"], report: paid.reports[1], round: null },
    })!;
    assert.deepEqual(redone.game.players, paid.game.players);
    assert.equal(redone.game.reports[0]?.status, "resolved");
    assert.deepEqual(redone.reports[1], paid.reports[1]);
  });

  test("a seat's new token moves only the version", () => {
    const before = snapshot(1);
    const after = applyEvent(before, { seq: 2, type: "seat_token_changed", at, data: { seat: "p1", change: "reissued" } })!;
    assert.equal(after.version, 2);
    assert.equal(after.game.players, before.game.players);
    assert.equal(after.reports[1], before.reports[1]);
  });

  test("the history: a change of play is undoable and clears the redoable; undo and redo move the last one", () => {
    const f2 = faithSet(2, { p1: 1 });
    const f3 = faithSet(3, { p1: 2 });
    let history = applyToHistory(applyToHistory(EMPTY_HISTORY, f2)!, f3)!;
    assert.deepEqual(history.undoable.map((e) => e.seq), [2, 3]);
    const undo = (seq: number, undone: number) => ({ seq, type: "change_undone", at, data: { seq: undone } });
    const redo = (seq: number, redone: number) => ({ seq, type: "change_redone", at, data: { seq: redone } });
    history = applyToHistory(history, undo(4, 3))!;
    history = applyToHistory(history, undo(5, 2))!;
    assert.deepEqual([history.undoable.length, history.redoable.map((e) => e.seq)], [0, [3, 2]]);
    history = applyToHistory(history, redo(6, 2))!;
    assert.deepEqual([history.undoable.map((e) => e.seq), history.redoable.map((e) => e.seq)], [[2], [3]]);
    // A seat's token change clears nothing; a new change of play clears what could be redone.
    history = applyToHistory(history, { seq: 7, type: "seat_token_changed", at, data: { seat: "p1", change: "revoked" } })!;
    assert.deepEqual(history.redoable.map((e) => e.seq), [3]);
    history = applyToHistory(history, faithSet(8, { p2: 1 }))!;
    assert.deepEqual([history.undoable.map((e) => e.seq), history.redoable], [[2, 8], []]);
    // An undo of what is not the last change in effect: the log and the history disagree.
    assert.equal(applyToHistory(history, undo(9, 2)), null);
    // On a snapshot that keeps a history, a disagreement is a read again.
    assert.equal(applyEvent({ ...snapshot(8), history }, { ...undo(9, 2), data: { seq: 2, type: "faith_set", players: [], turn_order: [], report: null, round: null } }), null);
  });
});

describe("gameState: history and its end", () => {
  test("with history, the log is read once to its version, then each event moves it", async () => {
    const fake = new FakeFetch(
      ...read(3),
      json(200, { events: [{ seq: 1, type: "game_created", at, data: {} }, faithSet(2, {}), faithSet(3, {})], last_seq: 3 }),
      (_call, init) => eventStream([sse([faithSet(4, { p1: 1 })])], { open: true, signal: init.signal ?? undefined }),
    );
    const sdk = new VaticanReportClient({ baseUrl: "http://t", token: "t", fetch: fake.fetch, sleep: fakeSleep().sleep });
    const state = sdk.gameState("g1", { history: true });
    const first = await state.ready;
    assert.deepEqual(first.history?.undoable.map((e) => e.seq), [2, 3]);
    assert.match(fake.calls[4]!.url, /\/events\?after=0&limit=1000$/);
    while ((state.current?.version ?? 0) < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(state.current?.history?.undoable.map((e) => e.seq), [2, 3, 4]);
    state.close();
    assert.deepEqual(await state.end, { reason: "closed" });
  });

  for (const [status, slug, reason] of [
    [404, "not-found", "deleted"],
    [401, "unauthorized", "seat-closed"],
    [403, "forbidden", "failed"],
  ] as const) {
    test(`a ${status} while following ends the state: ${reason}, and subscribers are told`, async () => {
      // A 404 for the stream could be a service that does not serve it: the long-poll's settles it.
      const fake = new FakeFetch(...read(1), problem(status, slug), problem(status, slug));
      const sdk = new VaticanReportClient({ baseUrl: "http://t", token: "t", fetch: fake.fetch, sleep: fakeSleep().sleep });
      const state = sdk.gameState("g1");
      const told: StateEnd[] = [];
      state.subscribe((_snapshot, change) => {
        if (change.kind === "ended") told.push(change.end);
      });
      const end = await state.end;
      assert.equal(end.reason, reason);
      assert.equal(state.ended, end);
      assert.deepEqual(told, [end]);
      await assert.rejects(state.done);
    });
  }

  test("a seat whose stream is superseded twice in a row ends the state: superseded", async () => {
    const superseded = () => eventStream([": end superseded\n\n"]);
    const fake = new FakeFetch(...read(1), superseded(), superseded());
    const sdk = new VaticanReportClient({ baseUrl: "http://t", token: "t", fetch: fake.fetch, sleep: fakeSleep().sleep });
    const told: string[] = [];
    const state = sdk.gameState("g1", { onStatus: (status) => told.push(status) });
    const end = await state.end;
    assert.equal(end.reason, "superseded");
    assert.ok("error" in end && end.error instanceof SupersededError);
    await assert.rejects(state.done, SupersededError);
    // follow()'s status, passed through: each stream opened, the first one's end retried.
    assert.deepEqual(told, ["live", "reconnecting", "live", "failed"]);
    assert.equal(state.status, "failed");
  });

  test("a game already gone at the first read ends the state too", async () => {
    const fake = new FakeFetch(problem(404, "not-found"));
    const sdk = new VaticanReportClient({ baseUrl: "http://t", token: "t", fetch: fake.fetch, sleep: fakeSleep().sleep });
    const state = sdk.gameState("g1");
    assert.equal(state.status, "connecting");
    assert.equal((await state.end).reason, "deleted");
    await assert.rejects(state.ready);
    assert.equal(state.status, "failed");
  });
});

describe("gameState", () => {
  test("read once, then each event folded in; an unknown type or a gap reads again, once each", async () => {
    const fake = new FakeFetch(
      ...read(1),
      (_call, init) =>
        eventStream(
          [sse([faithSet(2, { p1: 3 }), { seq: 3, type: "table_flipped", at, data: {} }, faithSet(5, { p2: 9 })])],
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
    // close() ends it: subscribers are told, with the last snapshot.
    assert.deepEqual(told, ["read@1", "event@2", "reread:unknown-event@3", "reread:gap@5", "ended@5"]);
    assert.equal(state.rereads, 2);
    assert.deepEqual(state.current, snapshot(5, { p1: 3, p2: 9 }));
    // A late subscriber gets the current snapshot at once.
    let late: GameSnapshot | undefined;
    state.subscribe((snap) => (late = snap))();
    assert.equal(late, state.current);
    assert.equal(sdk.version("g1"), 5);
  });
});
