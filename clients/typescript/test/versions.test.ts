// The version a client knows of each game: shared by its withToken handles, raised by
// every answer and every followed event, never lowered; and retryStale's per-operation
// policy on a 412.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { STALE_POLICY, VaticanReportClient, isProblem, type ClientOptions } from "../src/index.js";
import { FakeFetch, eventStream, fakeSleep, json, problem, sseEvent } from "./fake.js";

const BASE = "http://rules.test";

function client(fake: FakeFetch, options: Partial<ClientOptions> = {}) {
  return new VaticanReportClient({ baseUrl: BASE, fetch: fake.fetch, sleep: fakeSleep().sleep, ...options });
}

const report = (status: "open" | "resolved") => ({ period: 1, status, decisions: [], outcomes: null });

describe("known versions", () => {
  test("withToken handles share one client's known versions, both ways", async () => {
    const fake = new FakeFetch(json(200, { id: "g1" }, { ETag: '"4"' }), json(200, {}, { ETag: '"5"' }), json(200, {}));
    const service = client(fake);
    const host = service.withToken("host");
    const anna = service.withToken("anna");
    await host.getGame("g1");
    assert.equal(anna.etag("g1"), '"4"');
    await anna.setReportDecision("g1", 1, "p1", { choice: "support" });
    assert.equal(fake.calls[1]?.headers.get("If-Match"), '"4"');
    await host.setFaith("g1", { faith: { p1: 3 } });
    assert.equal(fake.calls[2]?.headers.get("If-Match"), '"5"');
    assert.equal(service.version("g1"), 5);
  });

  test("an answer that arrives late does not lower the version known", async () => {
    const fake = new FakeFetch(json(200, {}, { ETag: '"7"' }), json(200, {}, { ETag: '"6"' }));
    const sdk = client(fake);
    await sdk.getReport("g1", 1);
    await sdk.getReport("g1", 2);
    assert.equal(sdk.version("g1"), 7);
  });

  test("follow() raises the version known with each event, before its handler runs", async () => {
    const fake = new FakeFetch(
      (_call, init) => eventStream([sseEvent(2), sseEvent(3)], { open: true, signal: init.signal ?? undefined }),
      json(200, {}, { ETag: '"4"' }),
    );
    const service = client(fake);
    const host = service.withToken("host");
    const seen: Array<number | undefined> = [];
    let resolveThird: () => void = () => {};
    const third = new Promise<void>((resolve) => (resolveThird = resolve));
    const follower = service.withToken("anna").follow("g1", {
      after: 1,
      onEvent: (event) => {
        seen.push(host.version("g1"));
        if (event.seq === 3) resolveThird();
      },
    });
    await third;
    follower.close();
    await follower.done;
    assert.deepEqual(seen, [2, 3]);
    await host.setFaith("g1", { faith: { p1: 1 } });
    assert.equal(fake.calls[1]?.headers.get("If-Match"), '"3"');
  });
});

describe("retryStale", () => {
  test("a decision refused with 412 is re-read and sent once more with the new version", async () => {
    const fake = new FakeFetch(
      problem(412, "version-mismatch", { current_version: 6 }),
      json(200, { id: "g1", version: 6 }, { ETag: '"6"' }),
      json(200, report("open"), { ETag: '"7"' }),
    );
    const sdk = client(fake, { retryStale: true });
    sdk.transport.setEtag("g1", '"4"');
    const reply = await sdk.setReportDecision("g1", 1, "p1", { choice: "support" });
    assert.equal(reply.etag, '"7"');
    assert.deepEqual(
      fake.calls.map((c) => [c.method, c.url.replace(BASE, ""), c.headers.get("If-Match")]),
      [
        ["PUT", "/v1/games/g1/reports/1/decisions/p1", '"4"'],
        ["GET", "/v1/games/g1", null],
        ["PUT", "/v1/games/g1/reports/1/decisions/p1", '"6"'],
      ],
    );
  });

  test("the real problem behind a 412 comes out: a choice after the resolution is report-resolved", async () => {
    const fake = new FakeFetch(
      problem(412, "version-mismatch", { current_version: 6 }),
      json(200, { id: "g1", version: 6 }, { ETag: '"6"' }),
      problem(409, "report-resolved"),
    );
    const sdk = client(fake, { retryStale: true });
    sdk.transport.setEtag("g1", '"4"');
    const error = await sdk.setReportDecision("g1", 1, "p1", { choice: "support" }).catch((e: unknown) => e);
    assert.ok(isProblem(error, "report-resolved"), String(error));
    assert.equal(fake.calls.length, 3);
  });

  test("an absolute faith entry is never sent again: the 412 stands", async () => {
    for (const call of [
      (sdk: VaticanReportClient) => sdk.setFaith("g1", { faith: { p1: 5 } }),
      (sdk: VaticanReportClient) => sdk.setPlayerFaith("g1", "p1", { faith: 5 }),
      (sdk: VaticanReportClient) => sdk.setPlayerLeaders("g1", "p1", { leaders: [] }),
      (sdk: VaticanReportClient) => sdk.setTurnOrder("g1", { turn_order: ["p1"] }),
    ]) {
      const fake = new FakeFetch(problem(412, "version-mismatch", { current_version: 6 }));
      const sdk = client(fake, { retryStale: true });
      const error = await call(sdk).catch((e: unknown) => e);
      assert.ok(isProblem(error, "version-mismatch"));
      assert.equal(error.problem.current_version, 6);
      assert.equal(fake.calls.length, 1);
    }
  });

  test("a resolution is sent again only to hear that the report is already resolved", async () => {
    // The report is still open: what changed may change the outcomes, so the 412 stands.
    const open = new FakeFetch(problem(412, "version-mismatch"), json(200, report("open"), { ETag: '"6"' }));
    const error = await client(open, { retryStale: true })
      .resolveReport("g1", 1, {}, {})
      .catch((e: unknown) => e);
    assert.ok(isProblem(error, "version-mismatch"));
    assert.deepEqual(open.calls.map((c) => c.method), ["POST", "GET"]);
    // Resolved meanwhile: the second try, with the same Idempotency-Key, gets the real answer.
    const resolved = new FakeFetch(
      problem(412, "version-mismatch"),
      json(200, report("resolved"), { ETag: '"6"' }),
      problem(409, "report-resolved"),
    );
    const second = await client(resolved, { retryStale: true })
      .resolveReport("g1", 1)
      .catch((e: unknown) => e);
    assert.ok(isProblem(second, "report-resolved"));
    const [first, , again] = resolved.calls;
    assert.equal(again?.headers.get("If-Match"), '"6"');
    assert.equal(again?.headers.get("Idempotency-Key"), first?.headers.get("Idempotency-Key"));
  });

  test("off by default, off per call, and never over an If-Match the caller named", async () => {
    for (const [options, callOptions] of [
      [{}, {}],
      [{ retryStale: true }, { retryStale: false }],
      [{ retryStale: true }, { ifMatch: '"2"' }],
    ] as const) {
      const fake = new FakeFetch(problem(412, "version-mismatch"));
      const error = await client(fake, options)
        .setReportDecision("g1", 1, "p1", { choice: "refuse" }, callOptions)
        .catch((e: unknown) => e);
      assert.ok(isProblem(error, "version-mismatch"));
      assert.equal(fake.calls.length, 1);
    }
  });

  test("every operation of the contract that takes If-Match has a stated policy", () => {
    // A new change (a Faith delta, an undo...) must say whether it is safe to send again.
    const contract = JSON.parse(readFileSync(new URL("../../../../openapi/openapi.json", import.meta.url), "utf8"));
    const changes: string[] = [];
    for (const item of Object.values(contract.paths) as Array<Record<string, any>>) {
      for (const operation of Object.values(item)) {
        const headers = (operation.parameters ?? []).filter((p: any) => p.in === "header");
        if (headers.some((p: any) => p.name === "If-Match")) changes.push(operation.operationId);
      }
    }
    assert.ok(changes.length >= 6, String(changes));
    assert.deepEqual(Object.keys(STALE_POLICY).sort(), changes.sort());
  });
});
