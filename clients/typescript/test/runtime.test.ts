// The SDK where React Native leaves it: no EventSource, a fetch whose answers have no
// streamed body (text() and json() only), no crypto.randomUUID (only getRandomValues, as
// react-native-get-random-values gives it). Against a real `python -m app`
// (VATICAN_REPORT_URL): following falls back to long-polling, gameState() stays true,
// and Idempotency-Keys are still v4 UUIDs. node --test runs this file in a process of
// its own, so the globals removed here stay removed for nothing else.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { test } from "node:test";

import { VaticanReportClient, isUuidV4, type FetchLike, type GameEvent } from "../src/index.js";

const baseUrl = process.env["VATICAN_REPORT_URL"];
const skip = baseUrl ? false : "VATICAN_REPORT_URL is not set (the pytest wrapper sets it)";

const { getRandomValues } = globalThis.crypto;
const keys: string[] = [];

/** React Native's fetch, as far as the SDK can tell (it is built on XMLHttpRequest): the
 * whole answer at once, text() and json(), no body stream. Made on node:http, since Node's
 * own fetch needs the ReadableStream this test takes away. */
const bodiless: FetchLike = (url, init) =>
  new Promise((resolve, reject) => {
    const headers = new Headers(init.headers);
    const key = headers.get("Idempotency-Key");
    if (key) keys.push(key);
    const request = httpRequest(url, { method: init.method ?? "GET", headers: Object.fromEntries(headers) }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("error", reject);
      answer.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = answer.statusCode ?? 0;
        const received = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          if (typeof value === "string") received.set(name, value);
        }
        resolve({
          ok: status >= 200 && status < 300,
          status,
          statusText: answer.statusMessage ?? "",
          headers: received,
          body: null,
          text: async () => text,
          json: async () => JSON.parse(text),
        } as unknown as Response);
      });
    });
    const signal = init.signal;
    const abort = () => {
      request.destroy();
      reject(new DOMException("aborted", "AbortError"));
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener("abort", abort, { once: true });
    request.on("error", reject);
    request.end(typeof init.body === "string" ? init.body : undefined);
  });

function withoutStreams(): void {
  // Node's Headers (which the SDK uses) loads its code on first use, and that code needs
  // ReadableStream: load it now, then take the globals away.
  new Headers();
  for (const name of ["EventSource", "ReadableStream", "TextDecoderStream"]) {
    Reflect.deleteProperty(globalThis, name);
  }
  Object.defineProperty(globalThis, "crypto", {
    value: { getRandomValues: getRandomValues.bind(globalThis.crypto) },
    configurable: true,
  });
  assert.equal(typeof (globalThis as { EventSource?: unknown }).EventSource, "undefined");
  assert.equal(typeof (globalThis as { ReadableStream?: unknown }).ReadableStream, "undefined");
  assert.equal(typeof (globalThis.crypto as { randomUUID?: unknown }).randomUUID, "undefined");
}

test("without EventSource, streamed bodies or randomUUID: long-polling, a true state, v4 keys", { skip }, async () => {
  withoutStreams();
  const phone = (token?: string) =>
    new VaticanReportClient({ baseUrl: baseUrl!, fetch: bodiless, ...(token ? { token } : {}) });
  const created = await phone().createGame({ players: [{ name: "Anna" }, { name: "Bruno" }], seed: 3 });
  const gameId = created.data.game.id;
  const host = phone(created.data.host_token);
  const anna = phone(created.data.player_tokens["p1"]!);

  const heard: GameEvent[] = [];
  const follower = anna.follow(gameId, { wait: 2, onEvent: (event) => void heard.push(event) });
  const state = anna.gameState(gameId, { wait: 2 });
  try {
    await state.ready;
    await host.setFaith(gameId, { faith: { p1: 6, p2: 1 } });
    await anna.setReportDecision(gameId, 1, "p1", { choice: "support" }, { ifMatch: false });
    await host.resolveReport(gameId, 1, {}, { ifMatch: false });
    const game = (await host.getGame(gameId)).data;
    const deadline = Date.now() + 60_000;
    while ((state.current?.version ?? 0) < game.version || heard.length < game.version) {
      assert.ok(Date.now() < deadline, `the changes never arrived: ${heard.length} events, state at ${state.current?.version}, game at ${game.version}, ${follower.mode}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(follower.mode, "poll");
    assert.equal(state.mode, "poll");
    assert.deepEqual(
      heard.map((e) => e.type),
      ["game_created", "faith_set", "decision_set", "report_resolved"],
    );
    assert.deepEqual(state.current?.game, game);
    assert.deepEqual(state.current?.reports[1], (await host.getReport(gameId, 1)).data);
    assert.equal(keys.length, 2); // the creation and the resolution
    assert.ok(keys.every(isUuidV4), keys.join(" "));
  } finally {
    follower.close();
    state.close();
    await Promise.all([follower.done, state.done]);
  }
});
