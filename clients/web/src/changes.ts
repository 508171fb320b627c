// What a change of play was, in words, from its logged event: the undo and redo buttons say
// what they will take ("Undo: Anna's decision for period II"), and the phones what the host
// undid.
import type { GameHistory, PlayEvent } from "@vatican-report/client";
import { roman, t } from "./i18n.js";
import { nameOf, type Game } from "./widgets.js";

export function describeChange(event: PlayEvent, game: Game): string {
  switch (event.type) {
    case "faith_set": {
      const names = event.data.changes.map((c) => nameOf(game, c.player_id));
      return names.length === 1 ? t("ch_faith_one", { name: names[0]! }) : t("ch_faith_many", { names: names.join(", ") });
    }
    case "faith_changed": {
      const delta = event.data.delta;
      return t("ch_faith_change", { name: nameOf(game, event.data.player_id), delta: delta > 0 ? `+${delta}` : String(delta) });
    }
    case "leaders_set":
      return t("ch_leaders", { name: nameOf(game, event.data.player_id) });
    case "turn_order_set":
      return t("ch_turn_order");
    case "decision_set":
      return t("ch_decision", { name: nameOf(game, event.data.player_id), p: roman(event.data.period) });
    case "report_resolved":
      return t("ch_resolution", { p: roman(event.data.period) });
    case "round_advanced":
      return event.data.to.phase === "report"
        ? t("ch_report_phase", { r: event.data.to.number })
        : t("ch_round", { r: event.data.to.number });
  }
}

/** The change an undo would revert, and the one a redo would apply again. */
export function nextUndo(history: GameHistory | undefined): PlayEvent | undefined {
  return history?.undoable[history.undoable.length - 1];
}

export function nextRedo(history: GameHistory | undefined): PlayEvent | undefined {
  return history?.redoable[history.redoable.length - 1];
}

/** The logged change with this seq, among those the history holds. */
export function changeOf(history: GameHistory | undefined, seq: number): PlayEvent | undefined {
  return [...(history?.undoable ?? []), ...(history?.redoable ?? [])].find((e) => e.seq === seq);
}
