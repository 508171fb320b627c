import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  NetworkError,
  ProblemError,
  VaticanReportClient,
  isProblem,
  parseRetryAfter,
  type ClientOptions,
} from "../src/index.js";
import { FakeFetch, fakeSleep, json, problem } from "./fake.js";

const BASE = "http://rules.test";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const GAME = { id: "g1", version: 1 };
const CREATED = { game: GAME, host_token: "host-secret", player_tokens: { p1: "p1-secret" } };

function client(fake: FakeFetch, options: Partial<ClientOptions> = {}) {
  const clock = fakeSleep();
  const sdk = new VaticanReportClient({ baseUrl: `${BASE}/`, fetch: fake.fetch, sleep: clock.sleep, ...options });
  return { sdk, waits: clock.waits };
}

const players = [{ name: "Ada" }, { name: "Bea" }];

describe("tokens", () => {
  test("the token goes in the Authorization header and never in the URL", async () => {
    const fake = new FakeFetch(json(200, GAME, { ETag: '"1"' }));
    const { sdk } = client(fake, { token: "host-secret" });
    await sdk.getGame("g1");
    const [call] = fake.calls;
    assert.equal(call?.url, `${BASE}/v1/games/g1`);
    assert.equal(call?.headers.get("Authorization"), "Bearer host-secret");
    assert.ok(!call?.url.includes("secret"));
  });

  test("withToken makes a client for another token; calls without a token send none", async () => {
    const fake = new FakeFetch(json(201, CREATED, { ETag: '"1"' }), json(200, GAME));
    const { sdk } = client(fake);
    const created = await sdk.createGame({ players, players_enter_faith: false });
    assert.equal(fake.calls[0]?.headers.get("Authorization"), null);
    await sdk.withToken(created.data.host_token).getGame("g1");
    assert.equal(fake.calls[1]?.headers.get("Authorization"), "Bearer host-secret");
  });

  test("a token for one call overrides the client's", async () => {
    const fake = new FakeFetch(json(200, GAME));
    const { sdk } = client(fake, { token: "host-secret" });
    await sdk.getGame("g1", { token: "p1-secret" });
    assert.equal(fake.calls[0]?.headers.get("Authorization"), "Bearer p1-secret");
  });
});

describe("ETags", () => {
  test("a change sends as If-Match the last ETag seen for that game", async () => {
    const fake = new FakeFetch(
      json(200, GAME, { ETag: '"3"' }),
      json(200, {}, { ETag: '"4"' }),
      json(200, {}, { ETag: '"5"' }),
    );
    const { sdk } = client(fake, { token: "t" });
    await sdk.getGame("g1");
    await sdk.setFaith("g1", { faith: { p1: 5 } });
    await sdk.setReportDecision("g1", 1, "p1", { choice: "support" });
    assert.equal(fake.calls[1]?.headers.get("If-Match"), '"3"');
    assert.equal(fake.calls[2]?.headers.get("If-Match"), '"4"');
    assert.equal(sdk.etag("g1"), '"5"');
  });

  test("ETags are kept per game, and createGame records the new game's", async () => {
    const fake = new FakeFetch(json(201, CREATED, { ETag: '"1"' }), json(200, {}, { ETag: '"2"' }));
    const { sdk } = client(fake);
    await sdk.createGame({ players, players_enter_faith: false });
    assert.equal(sdk.etag("g1"), '"1"');
    assert.equal(sdk.etag("g2"), undefined);
    await sdk.setTurnOrder("g2", { turn_order: ["p1", "p2"] });
    assert.equal(fake.calls[1]?.headers.get("If-Match"), null);
  });

  test("ifMatch: an explicit value wins, false sends none, ifMatch 'never' turns it off", async () => {
    const fake = new FakeFetch(json(200, GAME, { ETag: '"3"' }), json(200, {}), json(200, {}));
    const { sdk } = client(fake);
    await sdk.getGame("g1");
    await sdk.setFaith("g1", { faith: { p1: 1 } }, { ifMatch: '"2"' });
    await sdk.setFaith("g1", { faith: { p1: 1 } }, { ifMatch: false });
    assert.equal(fake.calls[1]?.headers.get("If-Match"), '"2"');
    assert.equal(fake.calls[2]?.headers.get("If-Match"), null);

    const other = new FakeFetch(json(200, GAME, { ETag: '"3"' }), json(200, {}));
    const never = client(other, { ifMatch: "never" }).sdk;
    await never.getGame("g1");
    await never.setFaith("g1", { faith: { p1: 1 } });
    assert.equal(other.calls[1]?.headers.get("If-Match"), null);
  });

  test("a 304 is 'unchanged', not an error, and ifNoneMatch true sends the last ETag", async () => {
    const fake = new FakeFetch(
      json(200, GAME, { ETag: '"3"' }),
      new Response(null, { status: 304, headers: { ETag: '"3"' } }),
      new Response(null, { status: 304, headers: { ETag: '"3"' } }),
    );
    const { sdk } = client(fake);
    const first = await sdk.getGame("g1", { ifNoneMatch: true });
    assert.equal(first.unchanged, false);
    const again = await sdk.getGame("g1", { ifNoneMatch: true });
    assert.equal(again.unchanged, true);
    assert.equal(again.status, 304);
    assert.equal(fake.calls[1]?.headers.get("If-None-Match"), '"3"');
    const report = await sdk.getReport("g1", 2, { ifNoneMatch: '"3"' });
    assert.ok(report.unchanged);
    assert.equal(fake.calls[2]?.url, `${BASE}/v1/games/g1/reports/2`);
  });

  test("a 412 is a version-mismatch problem carrying current_version, never retried", async () => {
    const fake = new FakeFetch(problem(412, "version-mismatch", { current_version: 9 }));
    const { sdk } = client(fake);
    const error = await sdk.setFaith("g1", { faith: { p1: 1 } }, { ifMatch: '"3"' }).catch((e: unknown) => e);
    assert.ok(isProblem(error, "version-mismatch"));
    assert.equal(error.status, 412);
    assert.equal(error.problem.current_version, 9);
    assert.equal(fake.calls.length, 1);
  });
});

describe("idempotency and retries", () => {
  test("createGame and resolveReport send a fresh UUID Idempotency-Key; other calls none", async () => {
    const fake = new FakeFetch(json(201, CREATED), json(201, CREATED), json(201, {}), json(200, {}));
    const { sdk } = client(fake);
    await sdk.createGame({ players, players_enter_faith: false });
    await sdk.createGame({ players, players_enter_faith: false });
    await sdk.resolveReport("g1", 1, { default_choice: "support" });
    await sdk.setFaith("g1", { faith: {} });
    const keys = fake.calls.map((c) => c.headers.get("Idempotency-Key"));
    assert.match(keys[0] ?? "", UUID);
    assert.match(keys[1] ?? "", UUID);
    assert.match(keys[2] ?? "", UUID);
    assert.notEqual(keys[0], keys[1]);
    assert.equal(keys[3], null);
  });

  test("a network error, a 503 and a 429 are retried with the same key, honouring Retry-After", async () => {
    const fake = new FakeFetch(
      new TypeError("fetch failed"),
      problem(503, "service-unavailable", {}, { "Retry-After": "2" }),
      problem(429, "too-many-requests", {}, { "Retry-After": "1" }),
      json(201, CREATED, { "Idempotent-Replayed": "true" }),
    );
    const { sdk, waits } = client(fake);
    const reply = await sdk.createGame({ players, players_enter_faith: false });
    assert.equal(reply.status, 201);
    assert.equal(reply.replayed, true);
    assert.equal(fake.calls.length, 4);
    const keys = new Set(fake.calls.map((c) => c.headers.get("Idempotency-Key")));
    assert.equal(keys.size, 1);
    assert.equal(waits.length, 3);
    assert.deepEqual(waits.slice(1), [2000, 1000]);
    assert.ok(fake.calls.every((c) => c.body === fake.calls[0]?.body));
  });

  test("a key the caller chose is used on every try", async () => {
    const fake = new FakeFetch(problem(409, "idempotency-in-flight"), json(201, {}));
    const { sdk } = client(fake);
    await sdk.resolveReport("g1", 3, {}, { idempotencyKey: "a".repeat(22) });
    assert.deepEqual(
      fake.calls.map((c) => c.headers.get("Idempotency-Key")),
      ["a".repeat(22), "a".repeat(22)],
    );
  });

  test("after the last retry the problem is thrown; a Retry-After past the bound is not waited", async () => {
    const fake = new FakeFetch(
      ...Array.from({ length: 4 }, () => problem(503, "service-unavailable", {}, { "Retry-After": "1" })),
    );
    const { sdk, waits } = client(fake);
    const error = await sdk.getFaithTrack().catch((e: unknown) => e);
    assert.ok(isProblem(error, "service-unavailable"));
    assert.equal(error.retryAfterMs, 1000);
    assert.equal(fake.calls.length, 4);
    assert.deepEqual(waits, [1000, 1000, 1000]);

    const long = new FakeFetch(problem(429, "too-many-requests", {}, { "Retry-After": "3600" }));
    const patient = client(long);
    await assert.rejects(patient.sdk.getFaithTrack(), (e: unknown) => isProblem(e, "too-many-requests"));
    assert.equal(long.calls.length, 1);
    assert.deepEqual(patient.waits, []);
  });

  test("network errors past the retries are a NetworkError with the cause", async () => {
    const cause = new TypeError("fetch failed");
    const fake = new FakeFetch(cause, cause, cause);
    const { sdk } = client(fake, { retry: { retries: 2 } });
    const error = await sdk.getFaithTrack().catch((e: unknown) => e);
    assert.ok(error instanceof NetworkError);
    assert.equal(error.cause, cause);
    assert.equal(fake.calls.length, 3);
  });

  test("an aborted call is not retried", async () => {
    const controller = new AbortController();
    const fake = new FakeFetch((_call, init) => {
      controller.abort();
      throw Object.assign(new Error("aborted"), { name: "AbortError", signal: init.signal });
    });
    const { sdk } = client(fake);
    await assert.rejects(sdk.getFaithTrack({ signal: controller.signal }), { name: "AbortError" });
    assert.equal(fake.calls.length, 1);
  });

  test("a 4xx other than idempotency-in-flight is never retried", async () => {
    const fake = new FakeFetch(problem(409, "report-resolved"));
    const { sdk } = client(fake);
    await assert.rejects(sdk.resolveReport("g1", 1), (e: unknown) => isProblem(e, "report-resolved"));
    assert.equal(fake.calls.length, 1);
  });

  test("Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-30T20:00:00Z");
    assert.equal(parseRetryAfter("7", now), 7000);
    assert.equal(parseRetryAfter("Mon, 30 Nov 2026 20:00:05 GMT", now), 5000);
    assert.equal(parseRetryAfter("Mon, 30 Nov 2026 19:00:00 GMT", now), 0);
    assert.equal(parseRetryAfter("soon", now), null);
    assert.equal(parseRetryAfter(null, now), null);
  });
});

describe("problems", () => {
  test("a problem is a ProblemError with its slug, status, document and request id", async () => {
    const errors = [{ loc: ["body", "players", 0, "name"], msg: "too short", type: "string_too_short" }];
    const fake = new FakeFetch(problem(422, "validation-error", { errors }, { "X-Request-ID": "req-1" }));
    const { sdk } = client(fake);
    const error = await sdk.createGame({ players: [], players_enter_faith: false }).catch((e: unknown) => e);
    assert.ok(error instanceof ProblemError);
    assert.equal(error.slug, "validation-error");
    assert.equal(error.status, 422);
    assert.deepEqual(error.problem.errors, errors);
    assert.equal(error.requestId, "req-1");
    assert.ok(isProblem(error));
    assert.ok(!isProblem(error, "not-found", "forbidden"));
    assert.ok(!isProblem(new Error("x")));
  });

  test("an error page that is not a problem still becomes a ProblemError by status", async () => {
    const fake = new FakeFetch(new Response("<html>bad gateway</html>", { status: 400, statusText: "Bad Request" }));
    const { sdk } = client(fake);
    const error = await sdk.getFaithTrack().catch((e: unknown) => e);
    assert.ok(error instanceof ProblemError);
    assert.equal(error.slug, "about:blank");
    assert.equal(error.status, 400);
  });
});

describe("paths and queries", () => {
  test("ids are escaped in paths and queries are encoded", async () => {
    const fake = new FakeFetch(json(200, { tiles: [] }), json(200, { events: [], last_seq: 4 }));
    const { sdk } = client(fake);
    await sdk.listExcommunicationTiles({ period: 2, expansion: "base" });
    await sdk.listGameEvents("a/b", { after: 4, limit: 10 });
    assert.equal(fake.calls[0]?.url, `${BASE}/v1/excommunication-tiles?period=2&expansion=base`);
    assert.equal(fake.calls[1]?.url, `${BASE}/v1/games/a%2Fb/events?after=4&limit=10`);
  });
});

describe("the calls of undo, rounds, seats, recovery and deletion", () => {
  test("each goes to its path with its method; the POSTs carry an Idempotency-Key, the changes If-Match", async () => {
    const answers = () => [
      json(200, { player: {}, faith_lost: 0, applied: 1 }, { ETag: '"2"' }),
      json(200, GAME, { ETag: '"3"' }),
      json(200, { undone: { seq: 3, type: "round_advanced" }, undo: null, redo: null, game: GAME }, { ETag: '"4"' }),
      json(200, { redone: { seq: 3, type: "round_advanced" }, undo: null, redo: null, game: GAME }, { ETag: '"5"' }),
      json(200, { seat: "p1", token: "new" }),
      new Response(null, { status: 204 }),
      json(200, { host_token: "h2", recovery_code: "CODE" }),
      new Response(null, { status: 204 }),
    ];
    const fake = new FakeFetch(json(200, GAME, { ETag: '"1"' }), ...answers());
    const { sdk } = client(fake, { token: "host-secret" });
    await sdk.getGame("g1");
    await sdk.changePlayerFaith("g1", "p1", { delta: 1 });
    await sdk.advanceRound("g1");
    await sdk.undoChange("g1");
    await sdk.redoChange("g1");
    assert.equal((await sdk.issueSeatToken("g1", "p1")).data.token, "new");
    assert.equal((await sdk.revokeSeatToken("g1", "p2")).data, undefined);
    assert.equal((await sdk.recoverHostSeat("g1", { recovery_code: "code" })).data.host_token, "h2");
    assert.equal((await sdk.deleteGame("g1", { ifMatch: false })).status, 204);
    const seen = fake.calls.slice(1).map((c) => [
      c.method,
      c.url.slice(BASE.length),
      UUID.test(c.headers.get("Idempotency-Key") ?? ""),
      c.headers.get("If-Match"),
      c.body ?? null,
    ]);
    assert.deepEqual(seen, [
      ["POST", "/v1/games/g1/players/p1/faith-changes", true, '"1"', '{"delta":1}'],
      ["POST", "/v1/games/g1/round-advances", true, '"2"', null],
      ["POST", "/v1/games/g1/undo", true, '"3"', null],
      ["POST", "/v1/games/g1/redo", true, '"4"', null],
      ["POST", "/v1/games/g1/seats/p1/token", true, '"5"', null],
      ["DELETE", "/v1/games/g1/seats/p2/token", false, '"5"', null],
      // The recovery is not made on a version the caller saw: no If-Match.
      ["POST", "/v1/games/g1/recovery", true, null, '{"recovery_code":"code"}'],
      ["DELETE", "/v1/games/g1", false, null, null],
    ]);
  });

  test("a retry after a network error sends the same key: an undo is done once", async () => {
    const fake = new FakeFetch(new TypeError("connection reset"), json(200, { undone: { seq: 2, type: "faith_set" }, undo: null, redo: null, game: GAME }));
    const { sdk } = client(fake, { token: "host-secret" });
    await sdk.undoChange("g1");
    const [first, second] = fake.calls;
    assert.ok(UUID.test(first!.headers.get("Idempotency-Key") ?? ""));
    assert.equal(second!.headers.get("Idempotency-Key"), first!.headers.get("Idempotency-Key"));
  });
});
