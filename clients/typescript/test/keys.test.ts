// Every Idempotency-Key the SDK makes is a version-4 UUID from a secure source: from
// crypto.randomUUID, from crypto.getRandomValues where that is missing (React Native with
// its polyfill), and never from Math.random; with neither, an error names the polyfill.
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";

import {
  NoRandomSourceError,
  VaticanReportClient,
  isUuidV4,
  randomIdempotencyKey,
  uuidV4FromBytes,
} from "../src/index.js";
import { FakeFetch, json } from "./fake.js";

const CREATED = { game: { id: "g1", version: 1 }, host_token: "h", player_tokens: {} };
const realCrypto = globalThis.crypto;
const realRandom = Math.random;

/** Replaces globalThis.crypto (a getter in Node) for one test. */
function useCrypto(crypto: unknown): void {
  Object.defineProperty(globalThis, "crypto", { value: crypto, configurable: true, writable: true });
}

afterEach(() => {
  useCrypto(realCrypto);
  Math.random = realRandom;
});

async function keysMadeBy(sdk: VaticanReportClient, fake: FakeFetch, n: number): Promise<string[]> {
  for (let i = 0; i < n; i++) {
    fake.then(json(201, CREATED), json(201, {}));
    await sdk.createGame({ players: [{ name: "A" }, { name: "B" }] });
    await sdk.resolveReport("g1", 1);
  }
  return fake.calls.map((c) => c.headers.get("Idempotency-Key") ?? "");
}

describe("Idempotency-Keys", () => {
  test("with crypto.randomUUID: every key is a distinct v4 UUID", async () => {
    Math.random = () => assert.fail("Math.random must not make a key");
    const fake = new FakeFetch();
    const keys = await keysMadeBy(new VaticanReportClient({ baseUrl: "http://t", fetch: fake.fetch }), fake, 200);
    assert.equal(keys.length, 400);
    assert.ok(keys.every(isUuidV4), keys.find((k) => !isUuidV4(k)));
    assert.equal(new Set(keys).size, keys.length);
  });

  test("with only crypto.getRandomValues (React Native's polyfill): v4 UUIDs from its bytes", async () => {
    const asked: number[] = [];
    useCrypto({
      getRandomValues: <T extends ArrayBufferView | null>(array: T): T => {
        asked.push((array as unknown as Uint8Array).length);
        return realCrypto.getRandomValues(array as unknown as Uint8Array) as unknown as T;
      },
    });
    Math.random = () => assert.fail("Math.random must not make a key");
    const fake = new FakeFetch();
    const keys = await keysMadeBy(new VaticanReportClient({ baseUrl: "http://t", fetch: fake.fetch }), fake, 500);
    assert.ok(keys.every(isUuidV4), keys.find((k) => !isUuidV4(k)));
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(asked.length === keys.length && asked.every((n) => n === 16));
    // The 122 random bits are spread: every hex digit shows up at every random position.
    for (const position of [0, 9, 15, 20, 35]) {
      assert.equal(new Set(keys.map((k) => k[position])).size, 16, `position ${position}`);
    }
  });

  test("with no secure random source: an error naming the polyfill, and nothing sent", async () => {
    useCrypto(undefined);
    const fake = new FakeFetch(json(201, CREATED));
    const sdk = new VaticanReportClient({ baseUrl: "http://t", fetch: fake.fetch });
    await assert.rejects(sdk.createGame({ players: [{ name: "A" }, { name: "B" }] }), (error: unknown) => {
      assert.ok(error instanceof NoRandomSourceError);
      assert.match(error.message, /react-native-get-random-values/);
      return true;
    });
    assert.equal(fake.calls.length, 0);
    // A key of the caller's own still works there.
    const key = "2b0e3f4c-9a51-4c8e-8d3f-6a1b2c3d4e5f";
    await sdk.createGame({ players: [{ name: "A" }, { name: "B" }] }, { idempotencyKey: key });
    assert.equal(fake.calls[0]?.headers.get("Idempotency-Key"), key);
  });

  test("uuidV4FromBytes sets the version and variant bits and keeps the rest", () => {
    assert.equal(uuidV4FromBytes(new Uint8Array(16).fill(0xff)), "ffffffff-ffff-4fff-bfff-ffffffffffff");
    assert.equal(uuidV4FromBytes(new Uint8Array(16)), "00000000-0000-4000-8000-000000000000");
    assert.throws(() => uuidV4FromBytes(new Uint8Array(15)), RangeError);
    assert.ok(isUuidV4(randomIdempotencyKey()));
    assert.ok(!isUuidV4("00000000-0000-1000-8000-000000000000"));
  });
});
