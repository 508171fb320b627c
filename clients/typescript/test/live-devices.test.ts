// Several devices on one game against a real `python -m app` (VATICAN_REPORT_URL, set by
// tests/clients/test_typescript_sdk.py): each device is its own client, knowing only what
// it has seen. Versions kept current by follow(), retryStale's real problems, and a
// gameState() that equals a fresh read after a seeded random sequence of changes.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  VaticanReportClient,
  isProblem,
  type FetchLike,
  type GameSnapshot,
  type Period,
} from "../src/index.js";

const baseUrl = process.env["VATICAN_REPORT_URL"];
const skip = baseUrl ? false : "VATICAN_REPORT_URL is not set (the pytest wrapper sets it)";
const LEADERS = ["sisto_iv", "santa_rita", "martin_lutero"] as const;

function device(token?: string, options: { fetch?: FetchLike; retryStale?: boolean } = {}): VaticanReportClient {
  return new VaticanReportClient({ baseUrl: baseUrl!, ...(token ? { token } : {}), ...options });
}

async function newGame(playersEnterFaith = false) {
  const created = await device().createGame({
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }],
    seed: 42,
    players_enter_faith: playersEnterFaith,
  });
  return { gameId: created.data.game.id, host: created.data.host_token, players: created.data.player_tokens };
}

/** Waits (polling, generously bounded) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function freshRead(client: VaticanReportClient, gameId: string): Promise<GameSnapshot> {
  const game = (await client.getGame(gameId)).data;
  const reports = await Promise.all(([1, 2, 3] as const).map((p) => client.getReport(gameId, p)));
  return { game, reports: { 1: reports[0]!.data, 2: reports[1]!.data, 3: reports[2]!.data }, version: game.version };
}

test("two devices: the host's follow() keeps its version current, so its next change is not refused", { skip }, async () => {
  const { gameId, host: hostToken, players } = await newGame();
  const host = device(hostToken);
  const anna = device(players["p1"]);
  await host.setFaith(gameId, { faith: { p1: 5, p2: 2, p3: 9 } });
  const follower = host.follow(gameId, { after: 2, onEvent: () => undefined });
  try {
    await anna.getGame(gameId);
    const chose = await anna.setReportDecision(gameId, 1, "p1", { choice: "support" });
    await until(() => host.version(gameId) === 3, "the host to hear Anna's choice");
    // Without follow() this is the 412 of the README's example; with it, it just works.
    const carla = await host.setReportDecision(gameId, 1, "p3", { choice: "refuse" });
    assert.equal(chose.etag, '"3"');
    assert.equal(carla.etag, '"4"');
    await until(() => anna.version(gameId) === 3 && host.version(gameId) === 4, "the versions");
    const resolved = await host.resolveReport(gameId, 1);
    assert.equal(resolved.status, 201);

    // Anna's phone follows nothing: it still knows version 3. Its choice after the
    // resolution was a 412 hiding the real answer; retryStale re-reads and gets it.
    const hidden = await anna.setReportDecision(gameId, 1, "p1", { choice: "refuse" }).catch((e: unknown) => e);
    assert.ok(isProblem(hidden, "version-mismatch"), String(hidden));
    assert.equal(hidden.problem.current_version, 5);
    const real = await anna
      .setReportDecision(gameId, 1, "p1", { choice: "refuse" }, { retryStale: true })
      .catch((e: unknown) => e);
    assert.ok(isProblem(real, "report-resolved"), String(real));
    assert.equal(real.status, 409);
  } finally {
    follower.close();
    await follower.done;
  }
});

test("retryStale: a decision re-applies over another device's change; an absolute faith entry and a resolution do not", { skip }, async () => {
  const { gameId, host: hostToken } = await newGame();
  const host = device(hostToken, { retryStale: true });
  const other = device(hostToken); // the host's second screen
  await host.setFaith(gameId, { faith: { p1: 5, p2: 4, p3: 9 } });
  await other.getGame(gameId);
  await other.setPlayerLeaders(gameId, "p2", { leaders: ["santa_rita"] });
  // The host knows version 2, the game is at 3: the choice is the player's, whatever changed.
  const chose = await host.setReportDecision(gameId, 1, "p1", { choice: "support" });
  assert.equal(chose.etag, '"4"');
  await other.setFaith(gameId, { faith: { p2: 6 } }, { ifMatch: false });
  // "Bruno's faith is 3" typed on a stale screen must not overwrite the 6 just entered.
  const faith = await host.setFaith(gameId, { faith: { p2: 3 } }).catch((e: unknown) => e);
  assert.ok(isProblem(faith, "version-mismatch"), String(faith));
  await other.setReportDecision(gameId, 1, "p2", { choice: "refuse" }, { ifMatch: false });
  // Open, and changed since the host looked: resolving now would pay out on choices it has not seen.
  const resolve = await host.resolveReport(gameId, 1, { default_choice: "support" }).catch((e: unknown) => e);
  assert.ok(isProblem(resolve, "version-mismatch"), String(resolve));
  const state = (await host.getGame(gameId)).data;
  assert.equal(state.players.find((p) => p.id === "p2")?.faith, 6);
  assert.equal(state.reports[0]?.status, "open");
});

/** A seeded PRNG (mulberry32): the same sequence of changes on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One random change by one of the devices; refusals (a player short of faith, a report
 * out of order, nothing to undo...) change nothing and are part of the game. Changes
 * ignore versions: the devices race like phones at a table. A seat given a new token
 * gets a new phone (`phones` is updated); `keep` is the seat of the watching phone. */
async function randomChange(
  next: () => number,
  gameId: string,
  host: VaticanReportClient,
  phones: Record<string, VaticanReportClient>,
  keep: string,
): Promise<string> {
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const ids = ["p1", "p2", "p3"];
  const period = pick([1, 1, 2, 3] as const) as Period;
  const kind = pick([
    "faith", "player-faith", "faith-change", "faith-change", "leaders", "order", "decision", "decision", "decision",
    "resolve", "resolve", "round", "round", "undo", "undo", "redo", "seat",
  ]);
  const free = { ifMatch: false } as const;
  try {
    switch (kind) {
      case "faith":
        await host.setFaith(gameId, { faith: Object.fromEntries(ids.filter(() => next() < 0.6).map((id) => [id, Math.floor(next() * 18)])) }, free);
        break;
      case "player-faith": {
        const id = pick(ids);
        await phones[id]!.setPlayerFaith(gameId, id, { faith: Math.floor(next() * 16) }, free);
        break;
      }
      case "faith-change": {
        const id = pick(ids);
        const delta = pick([-3, -1, 1, 2, 5, 9]);
        await (next() < 0.5 ? host : phones[id]!).changePlayerFaith(gameId, id, { delta }, free);
        break;
      }
      case "leaders":
        await host.setPlayerLeaders(gameId, pick(ids), { leaders: LEADERS.filter(() => next() < 0.3) }, free);
        break;
      case "order":
        await host.setTurnOrder(gameId, { turn_order: [...ids].sort(() => next() - 0.5) }, free);
        break;
      case "decision": {
        const id = pick(ids);
        await phones[id]!.setReportDecision(gameId, period, id, { choice: pick(["support", "refuse"] as const) }, free);
        break;
      }
      case "resolve":
        await host.resolveReport(gameId, period, next() < 0.7 ? { default_choice: pick(["support", "refuse"] as const) } : {}, free);
        break;
      case "round":
        await host.advanceRound(gameId, free);
        break;
      case "undo":
        await host.undoChange(gameId, free);
        break;
      case "redo":
        await host.redoChange(gameId, free);
        break;
      case "seat": {
        const id = pick(ids.filter((seat) => seat !== keep));
        const issued = await host.issueSeatToken(gameId, id, free);
        phones[id] = device(issued.data.token);
        break;
      }
    }
    return kind;
  } catch (error) {
    const refusals = [
      "not-eligible", "report-resolved", "report-out-of-order", "decisions-pending", "not-in-report-phase",
      "report-still-open", "last-round", "nothing-to-undo", "nothing-to-redo",
    ] as const;
    if (isProblem(error, ...refusals)) return `refused:${error.slug}`;
    throw error;
  }
}

/** The snapshot without its history: what a fresh read of the game and reports gives. */
function withoutHistory(snapshot: GameSnapshot | undefined): GameSnapshot | undefined {
  if (!snapshot) return snapshot;
  const { history: _history, ...rest } = snapshot;
  return rest;
}

const top = (changes: readonly { seq: number }[] | undefined) => changes?.[changes.length - 1]?.seq ?? null;

test("gameState() equals a fresh read after a seeded random sequence of changes from other devices", { skip }, async () => {
  const created = await device().createGame({
    players: [{ name: "Anna", leaders: ["sisto_iv"] }, { name: "Bruno" }, { name: "Carla" }],
    seed: 42,
    players_enter_faith: true,
    track_rounds: true,
  });
  const gameId = created.data.game.id;
  const hostToken = created.data.host_token;
  const players = created.data.player_tokens;
  const watcher = device(players["p2"]); // a phone that only watches
  const state = watcher.gameState(gameId, { history: true });
  const changes: number[] = [];
  state.subscribe((snapshot, change) => {
    if (change.kind === "event") changes.push(snapshot.version);
  });
  await state.ready;
  const host = device(hostToken);
  const phones = Object.fromEntries(Object.entries(players).map(([id, token]) => [id, device(token)]));
  const next = random(20261201);
  const kinds: string[] = [];
  try {
    for (let i = 0; i < 120; i++) {
      kinds.push(await randomChange(next, gameId, host, phones, "p2"));
      // Now and then the state is compared mid-game, while changes still arrive.
      if (i % 20 === 19) {
        const expected = await freshRead(device(hostToken), gameId);
        await until(() => (state.current?.version ?? 0) >= expected.version, `version ${expected.version}`);
        if (state.current!.version === expected.version) assert.deepEqual(withoutHistory(state.current), expected);
      }
    }
    const expected = await freshRead(device(hostToken), gameId);
    await until(() => state.current?.version === expected.version, `version ${expected.version}`);
    assert.deepEqual(withoutHistory(state.current), expected);
    // Every change arrived as an event, folded in: none needed a read.
    assert.equal(state.rereads, 0);
    assert.deepEqual(changes, Array.from({ length: expected.version - 1 }, (_, i) => i + 2));
    // The sequence did play the game: reports resolved, choices refused, every kind of change.
    assert.ok(expected.version > 50, `only ${expected.version} versions`);
    assert.ok(Object.values(expected.reports).some((r) => r.status === "resolved"));
    for (const kind of ["faith", "player-faith", "faith-change", "leaders", "order", "decision", "resolve", "round", "undo", "redo", "seat"]) {
      assert.ok(kinds.includes(kind), `no ${kind} in ${kinds.join(" ")}`);
    }
    assert.ok(kinds.some((kind) => kind.startsWith("refused:")), kinds.join(" "));

    // The history the state kept is the service's: what it says an undo takes is what the
    // undo takes, and after it, what the answer says the next undo and redo would take.
    for (let i = 0; i < 3; i++) {
      const before = state.current!.history!;
      const undone = await host.undoChange(gameId, { ifMatch: false });
      assert.equal(undone.data.undone.seq, top(before.undoable));
      await until(() => state.current?.version === undone.data.game.version, `version ${undone.data.game.version}`);
      assert.equal(top(state.current!.history!.undoable), undone.data.undo?.seq ?? null);
      assert.equal(top(state.current!.history!.redoable), undone.data.redo?.seq ?? null);
      assert.deepEqual(state.current!.game, undone.data.game);
    }
    const redone = await host.redoChange(gameId, { ifMatch: false });
    await until(() => state.current?.version === redone.data.game.version, `version ${redone.data.game.version}`);
    assert.equal(top(state.current!.history!.undoable), redone.data.undo?.seq ?? null);
    assert.equal(top(state.current!.history!.redoable), redone.data.redo?.seq ?? null);
    assert.deepEqual(withoutHistory(state.current), await freshRead(device(hostToken), gameId));
  } finally {
    state.close();
    await state.done;
  }
});

test("gameState() ends typed: a seat given a new token is seat-closed, a deleted game is deleted", { skip }, async () => {
  const { gameId, host: hostToken, players } = await newGame();
  const host = device(hostToken);
  const old = device(players["p1"]).gameState(gameId);
  const table = device(players["p3"]).gameState(gameId);
  await Promise.all([old.ready, table.ready]);
  const issued = await host.issueSeatToken(gameId, "p1");
  assert.equal(issued.data.seat, "p1");
  const end = await old.end;
  assert.equal(end.reason, "seat-closed");
  assert.ok("error" in end && isProblem(end.error, "unauthorized"), String(end));
  // The new phone takes the seat; the table heard that the seat moved, and nothing else.
  const phone = device(issued.data.token).gameState(gameId);
  await phone.ready;
  await until(() => table.current?.version === 2, "the seat's event");
  assert.equal(table.rereads, 0);
  await host.deleteGame(gameId);
  for (const state of [phone, table]) assert.equal((await state.end).reason, "deleted");
  assert.ok(isProblem(await host.getGame(gameId).catch((e: unknown) => e), "not-found"));
});

test("five devices on one seat, four allowed: one is superseded twice in a row and ends so, four follow on", { skip }, async () => {
  const { gameId, host: hostToken, players } = await newGame();
  const host = device(hostToken);
  // MAX_STREAMS_PER_SEAT is 4 by default: the fifth stream ends the oldest, which comes
  // back after `retry` and ends the next oldest, and so on, until one is ended a second
  // time in a row and stops instead of ending yet another device's stream.
  const phones = Array.from({ length: 5 }, () => device(players["p2"]).gameState(gameId));
  await Promise.all(phones.map((phone) => phone.ready));
  await until(() => phones.some((phone) => phone.ended), "a phone to be superseded for good");
  const ended = phones.filter((phone) => phone.ended);
  assert.equal(ended.length, 1);
  assert.equal(ended[0]!.ended!.reason, "superseded");
  await host.setFaith(gameId, { faith: { p1: 1, p2: 2, p3: 3 } });
  const following = phones.filter((phone) => !phone.ended);
  await until(() => following.every((phone) => phone.current?.version === 2), "the four to hear the change");
  assert.equal(phones.filter((phone) => phone.ended).length, 1);
  assert.deepEqual(
    phones.map((phone) => phone.status).sort(),
    ["failed", "live", "live", "live", "live"],
  );
  for (const phone of following) phone.close();
});

test("an event type the SDK does not know: the state reads the game again, once, and stays true", { skip }, async () => {
  const { gameId, host: hostToken, players } = await newGame();
  const host = device(hostToken);
  // A newer service's event, as this SDK sees it: seq 3's type is one it has never heard of.
  const renamed: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    if (!url.includes("/events?")) return response;
    const page = (await response.json()) as { events: Array<{ seq: number; type: string }> };
    for (const event of page.events) if (event.seq === 3) event.type = "table_flipped";
    return new Response(JSON.stringify(page), { status: response.status, headers: response.headers });
  };
  const state = device(players["p1"], { fetch: renamed }).gameState(gameId, { mode: "poll", wait: 2 });
  const reasons: string[] = [];
  state.subscribe((_snapshot, change) => {
    if (change.kind === "reread") reasons.push(change.reason);
  });
  try {
    await state.ready;
    await host.setFaith(gameId, { faith: { p1: 5, p2: 2, p3: 9 } }, { ifMatch: false });
    await host.setPlayerLeaders(gameId, "p2", { leaders: ["martin_lutero"] }, { ifMatch: false });
    await host.setTurnOrder(gameId, { turn_order: ["p3", "p1", "p2"] }, { ifMatch: false });
    const expected = await freshRead(host, gameId);
    await until(() => state.current?.version === expected.version, `version ${expected.version}`);
    assert.deepEqual(state.current, expected);
    assert.deepEqual(reasons, ["unknown-event"]);
    assert.equal(state.rereads, 1);
  } finally {
    state.close();
    await state.done;
  }
});
