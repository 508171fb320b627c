// When a phone may warn of the coming excommunication (src/due.ts), without a browser: the
// module is bundled by esbuild, as the build does, and imported.
import assert from "node:assert/strict";
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

let due;
let folder;
before(async () => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("../src/due.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    write: false,
    logLevel: "warning",
  });
  folder = mkdtempSync(join(tmpdir(), "due-"));
  const file = join(folder, "due.mjs");
  writeFileSync(file, result.outputFiles[0].contents);
  due = await import(file);
});
after(() => rmSync(folder, { recursive: true, force: true }));

const fold = (types) => types.reduce((signals, type) => due.afterEvent(signals, { type }), due.NO_SIGNALS);

test("without rounds, a report is due once Faith is entered since the previous one", () => {
  const { reportDue } = due;
  // Period I: nothing is due at the creation, nor after leaders or the turn order change.
  assert.equal(reportDue(2, fold(["game_created"]), null), null);
  assert.equal(reportDue(2, fold(["game_created", "leaders_set", "turn_order_set"]), null), null);
  // The host enters Faith, or a player chooses: the report is at hand.
  assert.equal(reportDue(2, fold(["game_created", "faith_set"]), null), "report");
  assert.equal(reportDue(2, fold(["game_created", "decision_set"]), null), "report");
  // Period I resolved: period II is not due again until Faith is entered for it.
  const resolved = fold(["game_created", "faith_set", "decision_set", "report_resolved"]);
  assert.equal(reportDue(4, resolved, null), null);
  assert.equal(reportDue(4, due.afterEvent(resolved, { type: "leaders_set" }), null), null);
  assert.equal(reportDue(4, due.afterEvent(resolved, { type: "faith_set" }), null), "report");
  // An event this page does not know changes nothing.
  assert.equal(reportDue(4, due.afterEvent(resolved, { type: "something_new" }), null), null);
});

test("with rounds, a report is due in its last round and its report phase only", () => {
  const { reportDue } = due;
  const entered = fold(["game_created", "faith_set"]);
  for (const signals of [due.NO_SIGNALS, entered]) {
    // Faith entered early in a tracked game does not make the report due: the round decides.
    assert.equal(reportDue(2, signals, { number: 1, phase: "play" }), null);
    assert.equal(reportDue(2, signals, { number: 2, phase: "play" }), "last_round");
    assert.equal(reportDue(2, signals, { number: 2, phase: "report" }), "report");
    assert.equal(reportDue(4, signals, { number: 3, phase: "play" }), null);
    assert.equal(reportDue(4, signals, { number: 4, phase: "play" }), "last_round");
    assert.equal(reportDue(6, signals, { number: 6, phase: "report" }), "report");
  }
});

test("a game's round is read only when well formed", () => {
  const { roundOf } = due;
  assert.deepEqual(roundOf({ round: { number: 2, phase: "report" } }), { number: 2, phase: "report" });
  assert.deepEqual(roundOf({ round: { number: 3, phase: "play", extra: 1 } }), { number: 3, phase: "play" });
  for (const game of [{}, { round: null }, { round: 2 }, { round: { number: "2", phase: "play" } }, { round: { number: 2.5, phase: "play" } }, { round: { number: 2, phase: "later" } }]) {
    assert.equal(roundOf(game), null, JSON.stringify(game));
  }
});

test("from the changes in effect: a Faith change counts, an undone Faith entry does not", () => {
  const { reportDue, signalsOf } = due;
  // The SDK's history lists the changes of play in effect, oldest first (no creation).
  assert.equal(reportDue(2, signalsOf([]), null), null);
  assert.equal(reportDue(2, signalsOf([{ type: "faith_changed" }]), null), "report");
  // Leaders, then a Faith entry the host undid: only the leaders are in effect, nothing is due.
  assert.equal(reportDue(2, signalsOf([{ type: "leaders_set" }]), null), null);
  // Period I resolved, then the resolution undone: period I's Faith entry counts again.
  assert.equal(reportDue(4, signalsOf([{ type: "faith_set" }, { type: "report_resolved" }]), null), null);
  assert.equal(reportDue(2, signalsOf([{ type: "faith_set" }]), null), "report");
});
