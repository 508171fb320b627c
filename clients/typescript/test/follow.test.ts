import assert from "node:assert/strict";
import { test } from "node:test";

import {
  IdleTimeoutError,
  StreamEndedError,
  SupersededError,
  VaticanReportClient,
  isProblem,
  type FollowStatus,
  type GameEvent,
} from "../src/index.js";
import { FakeFetch, eventStream, fakeSleep, json, problem, sseEvent } from "./fake.js";

const BASE = "http://rules.test";

function setup(fake: FakeFetch) {
  const clock = fakeSleep();
  const sdk = new VaticanReportClient({ baseUrl: BASE, token: "p1-secret", fetch: fake.fetch, sleep: clock.sleep });
  return { sdk, waits: clock.waits };
}

/** Follows until `count` events arrived, then closes; returns the seqs delivered. */
async function collect(sdk: VaticanReportClient, count: number, after?: number, extra: object = {}) {
  const seen: number[] = [];
  const follower = sdk.follow("g1", {
    ...(after === undefined ? {} : { after }),
    ...extra,
    onEvent: (event: GameEvent) => {
      seen.push(event.seq);
      if (seen.length === count) follower.close();
    },
  });
  await follower.done;
  return { seen, follower };
}

test("follow reads the stream with the token in Authorization, never in the URL", async () => {
  const fake = new FakeFetch(eventStream([": hello\n\n", sseEvent(1, "game_created"), sseEvent(2), sseEvent(3)]));
  const { sdk } = setup(fake);
  const { seen, follower } = await collect(sdk, 3);
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(follower.lastSeq, 3);
  assert.equal(follower.mode, "stream");
  const [call] = fake.calls;
  assert.equal(call?.url, `${BASE}/v1/games/g1/events/stream`);
  assert.equal(call?.headers.get("Authorization"), "Bearer p1-secret");
  assert.equal(call?.headers.get("Accept"), "text/event-stream");
  assert.equal(call?.headers.get("Last-Event-ID"), null);
  assert.ok(!call?.url.includes("secret"));
});

test("the event is the parsed data, in full", async () => {
  const fake = new FakeFetch(eventStream([sseEvent(4, "decision_set")]));
  const { sdk } = setup(fake);
  const events: GameEvent[] = [];
  const follower = sdk.follow("g1", {
    after: 3,
    onEvent: (event) => {
      events.push(event);
      follower.close();
    },
  });
  await follower.done;
  assert.deepEqual(events, [{ seq: 4, type: "decision_set", at: "2026-11-30T20:00:00Z", data: { seq: 4 } }]);
});

test("`after` is sent as Last-Event-ID and nothing at or before it is delivered", async () => {
  const fake = new FakeFetch(eventStream([sseEvent(4), sseEvent(5), sseEvent(6)]));
  const { sdk } = setup(fake);
  const { seen } = await collect(sdk, 1, 5);
  assert.deepEqual(seen, [6]);
  assert.equal(fake.calls[0]?.headers.get("Last-Event-ID"), "5");
});

test("a dropped stream resumes from the last seq, skipping what the server sends again", async () => {
  const fake = new FakeFetch(
    eventStream([sseEvent(1), sseEvent(2), 'id: 3\ndata: {"seq": 3, "ty']), // cut mid-event
    new TypeError("connection refused"),
    eventStream([sseEvent(2), sseEvent(3), sseEvent(4)]),
  );
  const { sdk, waits } = setup(fake);
  const errors: unknown[] = [];
  const { seen } = await collect(sdk, 4, undefined, { onError: (e: unknown) => errors.push(e) });
  assert.deepEqual(seen, [1, 2, 3, 4]);
  assert.deepEqual(
    fake.calls.map((c) => c.headers.get("Last-Event-ID")),
    [null, "2", "2"],
  );
  assert.equal(errors.length, 2);
  assert.equal(waits.length, 2);
});

test("a server's retry: sets the reconnection delay; a 503 waits its Retry-After", async () => {
  const fake = new FakeFetch(
    eventStream(["retry: 1500\n\n", sseEvent(1)]),
    problem(503, "service-unavailable", {}, { "Retry-After": "4" }),
    eventStream([sseEvent(2)]),
  );
  const { sdk, waits } = setup(fake);
  const { seen } = await collect(sdk, 2);
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(waits, [1500, 4000]);
});

test("where the stream is not served, follow long-polls events?after=N&wait=25", async () => {
  const page = (events: number[], last: number) =>
    json(200, {
      events: events.map((seq) => ({ seq, type: "faith_set", at: "2026-11-30T20:00:00Z", data: {} })),
      last_seq: last,
    });
  const fake = new FakeFetch(problem(404, "not-found"), page([1, 2], 2), page([], 2), page([3], 3));
  const { sdk } = setup(fake);
  const { seen, follower } = await collect(sdk, 3);
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(follower.mode, "poll");
  assert.deepEqual(
    fake.calls.map((c) => c.url),
    [
      `${BASE}/v1/games/g1/events/stream`,
      `${BASE}/v1/games/g1/events?after=0&wait=25`,
      `${BASE}/v1/games/g1/events?after=2&wait=25`,
      `${BASE}/v1/games/g1/events?after=2&wait=25`,
    ],
  );
  assert.ok(fake.calls.every((c) => c.headers.get("Authorization") === "Bearer p1-secret"));
});

test("a poll that answers at once with nothing waits before asking again", async () => {
  const fake = new FakeFetch(json(200, { events: [], last_seq: 0 }));
  const { sdk, waits } = setup(fake);
  const follower = sdk.follow("g1", { mode: "poll", wait: 5, minPollIntervalMs: 800, onEvent: () => undefined });
  while (fake.calls.length < 2) await new Promise((resolve) => setImmediate(resolve));
  follower.close();
  await follower.done;
  assert.equal(fake.calls[0]?.url, `${BASE}/v1/games/g1/events?after=0&wait=5`);
  assert.equal(waits.length, 1);
  assert.ok(waits[0]! > 0 && waits[0]! <= 800);
});

test("an unknown game ends follow with the not-found problem", async () => {
  const fake = new FakeFetch(problem(404, "not-found"), problem(404, "not-found"));
  const { sdk } = setup(fake);
  const follower = sdk.follow("nope", { onEvent: () => undefined });
  await assert.rejects(follower.done, (e: unknown) => isProblem(e, "not-found"));
  assert.equal(fake.calls.length, 2);
});

test("a refused token ends follow at once", async () => {
  const fake = new FakeFetch(problem(401, "unauthorized"));
  const { sdk } = setup(fake);
  const follower = sdk.follow("g1", { onEvent: () => undefined });
  await assert.rejects(follower.done, (e: unknown) => isProblem(e, "unauthorized"));
  assert.equal(fake.calls.length, 1);
});

test("an onEvent that throws ends follow with its error; events after it are not delivered", async () => {
  const fake = new FakeFetch(eventStream([sseEvent(1), sseEvent(2)]));
  const { sdk } = setup(fake);
  const seen: number[] = [];
  const follower = sdk.follow("g1", {
    onEvent: (event) => {
      seen.push(event.seq);
      throw new Error("boom");
    },
  });
  await assert.rejects(follower.done, /boom/);
  assert.deepEqual(seen, [1]);
  assert.equal(follower.lastSeq, 0);
});

test("aborting the signal closes an open stream; done resolves", async () => {
  const controller = new AbortController();
  const fake = new FakeFetch((_call, init) =>
    eventStream([sseEvent(1)], { open: true, ...(init.signal ? { signal: init.signal } : {}) }),
  );
  const { sdk } = setup(fake);
  const seen: number[] = [];
  const follower = sdk.follow("g1", {
    signal: controller.signal,
    onEvent: (event) => {
      seen.push(event.seq);
      setImmediate(() => controller.abort());
    },
  });
  await follower.done;
  assert.deepEqual(seen, [1]);
  assert.equal(fake.calls.length, 1);
});

test("a stream silent past idleTimeoutMs is presumed dead and reopened from the last seq", async () => {
  const fake = new FakeFetch(
    (_call, init) => eventStream([sseEvent(1)], { open: true, ...(init.signal ? { signal: init.signal } : {}) }),
    eventStream([sseEvent(2)]),
  );
  const { sdk } = setup(fake);
  const errors: unknown[] = [];
  const { seen } = await collect(sdk, 2, undefined, { idleTimeoutMs: 50, onError: (e: unknown) => errors.push(e) });
  assert.deepEqual(seen, [1, 2]);
  assert.equal(fake.calls[1]?.headers.get("Last-Event-ID"), "1");
  assert.ok(errors[0] instanceof IdleTimeoutError, String(errors[0]));
});

test("a long-poll that never answers is given up after wait plus idleTimeoutMs, then asked again", async () => {
  const fake = new FakeFetch(); // the first poll hangs until the client gives up on it
  const { sdk } = setup(fake);
  const errors: unknown[] = [];
  const follower = sdk.follow("g1", {
    mode: "poll",
    wait: 0,
    idleTimeoutMs: 50,
    onEvent: () => undefined,
    onError: (e) => {
      errors.push(e);
      follower.close();
    },
  });
  await follower.done;
  assert.equal(fake.calls[0]?.url, `${BASE}/v1/games/g1/events?after=0&wait=0`);
  assert.ok(errors[0] instanceof IdleTimeoutError, String(errors[0]));
});

test("a fatal error nobody awaits does not become an unhandled rejection", async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", record);
  try {
    const fake = new FakeFetch(problem(403, "forbidden"));
    const { sdk } = setup(fake);
    const follower = sdk.follow("g1", { onEvent: () => undefined });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(unhandled, []);
    await assert.rejects(follower.done, (e: unknown) => isProblem(e, "forbidden"));
  } finally {
    process.off("unhandledRejection", record);
  }
});

test("a fetch that cannot stream a body (React Native) makes follow long-poll", async () => {
  const fake = new FakeFetch(
    new Response(null, { status: 200, headers: { "Content-Type": "text/event-stream" } }),
    json(200, { events: [{ seq: 1, type: "game_created", at: "2026-11-30T20:00:00Z", data: {} }], last_seq: 1 }),
  );
  const { sdk } = setup(fake);
  const { seen, follower } = await collect(sdk, 1);
  assert.deepEqual(seen, [1]);
  assert.equal(follower.mode, "poll");
});

test("a stream ended at its time bound is resumed at once, with no error told", async () => {
  const fake = new FakeFetch(
    eventStream(["retry: 2000\n\n", sseEvent(1), ": end time-bound\n\n"], { closeAfterMs: 60 }),
    eventStream([sseEvent(2)]),
  );
  const { sdk, waits } = setup(fake);
  const errors: unknown[] = [];
  const options = { onError: (e: unknown) => errors.push(e), minPollIntervalMs: 30 };
  const { seen } = await collect(sdk, 2, undefined, options);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(fake.calls[1]?.headers.get("Last-Event-ID"), "1");
  assert.deepEqual(waits, []);
  assert.deepEqual(errors, []);
});

test("streams ended at a time bound shorter than the shortest interval are spaced out", async () => {
  const fake = new FakeFetch(
    eventStream(["retry: 2000\n\n", sseEvent(1), ": end time-bound\n\n"]),
    eventStream([sseEvent(2), ": end time-bound\n\n"]),
    eventStream([sseEvent(3)]),
  );
  const { sdk, waits } = setup(fake);
  const errors: unknown[] = [];
  const { seen } = await collect(sdk, 3, undefined, { onError: (e: unknown) => errors.push(e) });
  assert.deepEqual(seen, [1, 2, 3]);
  // Not the 2 s retry: the rest of the default 1 s since each stream was opened.
  assert.equal(waits.length, 2);
  assert.ok(waits.every((ms) => ms > 900 && ms <= 1000), String(waits));
  assert.deepEqual(errors, []);
});

test("a stream ended for its token or its game reconnects at once and ends with the real answer", async () => {
  for (const [reason, status, slug] of [
    ["token", 401, "unauthorized"],
    ["gone", 404, "not-found"],
  ] as const) {
    const fake = new FakeFetch(
      eventStream(["retry: 2000\n\n", sseEvent(1), `: end ${reason}\n\n`]),
      problem(status, slug),
      problem(status, slug), // a 404 on the stream is tried as a long-poll too
    );
    const { sdk, waits } = setup(fake);
    const follower = sdk.follow("g1", { onEvent: () => undefined });
    await assert.rejects(follower.done, (e: unknown) => isProblem(e, slug));
    assert.deepEqual(waits, [], reason);
  }
});

test("a shutdown or a reader left behind waits the server's retry and tells onError why", async () => {
  const fake = new FakeFetch(
    eventStream(["retry: 1500\n\n", sseEvent(1), ": end shutdown\n\n"]),
    eventStream([sseEvent(2), ": end behind\n\n"]),
    eventStream([sseEvent(3)]),
  );
  const { sdk, waits } = setup(fake);
  const errors: unknown[] = [];
  const { seen } = await collect(sdk, 3, undefined, { onError: (e: unknown) => errors.push(e) });
  assert.deepEqual(seen, [1, 2, 3]);
  assert.deepEqual(waits, [1500, 1500]);
  assert.deepEqual(
    errors.map((e) => (e instanceof StreamEndedError ? e.reason : e)),
    ["shutdown", "behind"],
  );
});

test("superseded once, follow resumes after the retry; twice in a row, it ends with SupersededError", async () => {
  const fake = new FakeFetch(
    eventStream(["retry: 2000\n\n", sseEvent(1), ": end superseded\n\n"]),
    eventStream([sseEvent(2), ": end superseded\n\n"]),
    eventStream([sseEvent(3)]), // never asked for
  );
  const { sdk, waits } = setup(fake);
  const seen: number[] = [];
  const errors: unknown[] = [];
  const follower = sdk.follow("g1", { onEvent: (e) => void seen.push(e.seq), onError: (e) => void errors.push(e) });
  await assert.rejects(follower.done, (e: unknown) => e instanceof SupersededError && e.reason === "superseded");
  assert.deepEqual(seen, [1, 2]);
  assert.equal(fake.calls.length, 2);
  assert.deepEqual(waits, [2000]);
  assert.ok(errors.length === 1 && errors[0] instanceof StreamEndedError && !(errors[0] instanceof SupersededError));
});

test("superseded twice with another end between them is two single times: follow goes on", async () => {
  const fake = new FakeFetch(
    eventStream([sseEvent(1), ": end superseded\n\n"]),
    eventStream([sseEvent(2), ": end time-bound\n\n"]),
    eventStream([sseEvent(3), ": end superseded\n\n"]),
    eventStream([sseEvent(4)]),
  );
  const { sdk } = setup(fake);
  const { seen } = await collect(sdk, 4);
  assert.deepEqual(seen, [1, 2, 3, 4]);
});

test("long-polls: a page marked Follow-Ended: superseded twice in a row ends follow; once, it goes on", async () => {
  const page = (events: number[], last: number, ended?: string) =>
    json(
      200,
      { events: events.map((seq) => ({ seq, type: "faith_set", at: "2026-11-30T20:00:00Z", data: {} })), last_seq: last },
      ended ? { "Follow-Ended": ended } : {},
    );
  const once = new FakeFetch(page([], 0, "superseded"), page([1], 1), page([], 1, "superseded"), page([2], 2));
  const { seen } = await collect(setup(once).sdk, 2, undefined, { mode: "poll" });
  assert.deepEqual(seen, [1, 2]);

  const twice = new FakeFetch(page([1], 1), page([], 1, "superseded"), page([], 1, "superseded"), page([2], 2));
  const follower = setup(twice).sdk.follow("g1", { mode: "poll", onEvent: () => undefined });
  await assert.rejects(follower.done, SupersededError);
  assert.equal(twice.calls.length, 3);
  assert.equal(follower.lastSeq, 1);
});

test("status: connecting, live once the stream opens, reconnecting after a drop, live again, closed", async () => {
  const fake = new FakeFetch(
    eventStream([sseEvent(1)]), // closed without a word: a drop
    new TypeError("connection refused"),
    (_call, init) => eventStream([sseEvent(2)], { open: true, ...(init.signal ? { signal: init.signal } : {}) }),
  );
  const { sdk } = setup(fake);
  const told: FollowStatus[] = [];
  const follower = sdk.follow("g1", {
    onStatus: (status) => told.push(status),
    onEvent: (event) => {
      if (event.seq === 2) setImmediate(() => follower.close());
    },
  });
  assert.equal(follower.status, "connecting");
  await follower.done;
  assert.deepEqual(told, ["live", "reconnecting", "live", "closed"]);
  assert.equal(follower.status, "closed");
});

test("status: a stream taken up again at its time bound stays live; a refused token is failed", async () => {
  const fake = new FakeFetch(
    eventStream([sseEvent(1), ": end time-bound\n\n"]),
    eventStream([sseEvent(2), ": end token\n\n"]),
    problem(401, "unauthorized"),
  );
  const { sdk } = setup(fake);
  const told: FollowStatus[] = [];
  const follower = sdk.follow("g1", { onStatus: (status) => told.push(status), onEvent: () => undefined });
  await assert.rejects(follower.done, (e: unknown) => isProblem(e, "unauthorized"));
  assert.deepEqual(told, ["live", "failed"]);
  assert.equal(follower.status, "failed");
});

test("status: long-polls are live once one is answered", async () => {
  const fake = new FakeFetch(json(200, { events: [{ seq: 1, type: "faith_set", at: "2026-11-30T20:00:00Z", data: {} }], last_seq: 1 }));
  const { sdk } = setup(fake);
  const told: FollowStatus[] = [];
  const { follower } = await collect(sdk, 1, undefined, { mode: "poll", onStatus: (s: FollowStatus) => told.push(s) });
  assert.deepEqual(told, ["live", "closed"]);
  assert.equal(follower.mode, "poll");
});
