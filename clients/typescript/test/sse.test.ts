import assert from "node:assert/strict";
import { test } from "node:test";

import { SseParser, type SseMessage } from "../src/index.js";

function parse(...chunks: string[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

test("id, event and data make one message at the blank line", () => {
  assert.deepEqual(parse('id: 5\nevent: decision_set\ndata: {"seq": 5}\n\n'), [
    { id: "5", event: "decision_set", data: '{"seq": 5}' },
  ]);
});

test("several data lines are joined with newlines; no space after the colon is fine", () => {
  assert.deepEqual(parse("data:a\ndata:  b\ndata\n\n"), [{ id: "", event: "message", data: "a\n b\n" }]);
});

test("comments (heartbeats) and unknown fields are ignored", () => {
  assert.deepEqual(parse(": ping\n\n: ping\nfoo: bar\ndata: x\n\n"), [{ id: "", event: "message", data: "x" }]);
});

test("a message split anywhere across chunks, CRLF split between chunks included", () => {
  const whole = "id: 7\r\nevent: faith_set\r\ndata: {\"seq\": 7}\r\n\r\nid: 8\rdata: y\r\r";
  const expected = [
    { id: "7", event: "faith_set", data: '{"seq": 7}' },
    { id: "8", event: "message", data: "y" },
  ];
  for (let cut = 0; cut <= whole.length; cut++) {
    assert.deepEqual(parse(whole.slice(0, cut), whole.slice(cut)), expected, `cut at ${cut}`);
  }
  assert.deepEqual(parse(...whole.split("")), expected);
});

test("the last id carries over to later messages and is the resume point", () => {
  const parser = new SseParser();
  const messages = parser.push("id: 3\ndata: a\n\ndata: b\n\n");
  assert.deepEqual(
    messages.map((m) => m.id),
    ["3", "3"],
  );
  assert.equal(parser.lastEventId, "3");
  parser.push("id: 4\n\n"); // an id with no data still moves the resume point
  assert.equal(parser.lastEventId, "4");
});

test("retry is reported; an event type without data dispatches nothing and is reset", () => {
  assert.deepEqual(parse("retry: 1500\n\n"), [{ id: "", event: "", data: "", retry: 1500 }]);
  assert.deepEqual(parse("event: x\n\ndata: y\n\n"), [{ id: "", event: "message", data: "y" }]);
  assert.deepEqual(parse("retry: soon\ndata: y\n\n"), [{ id: "", event: "message", data: "y" }]);
});

test("an event not closed by a blank line is never dispatched", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push("id: 9\ndata: half"), []);
  parser.end();
  assert.deepEqual(parser.push("\n\n"), []);
});

test("each comment's text is told to onComment, without its colon and one space", () => {
  const comments: string[] = [];
  const parser = new SseParser({ onComment: (text) => comments.push(text) });
  const messages = parser.push(": heartbeat\n\ndata: x\n\n:no space\n:  two spaces\n: end superseded\n\n");
  assert.deepEqual(messages, [{ id: "", event: "message", data: "x" }]);
  assert.deepEqual(comments, ["heartbeat", "no space", " two spaces", "end superseded"]);
});
