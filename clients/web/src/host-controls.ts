// The host's controls over the game itself: undo and redo (each button says what it will
// take, from the log), the round when the game tracks rounds, the host seat's recovery
// code, and deleting the game, with a confirmation first.
import type { GameHistory } from "@vatican-report/client";
import { pageUrl } from "./api.js";
import { describeChange, nextRedo, nextUndo } from "./changes.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { withRules } from "./rules.js";
import { errorBox, type Game } from "./widgets.js";

type Round = NonNullable<Game["round"]>;

export interface ControlsView {
  game: Game;
  history: GameHistory | undefined;
  busy: boolean;
  error: unknown;
  undo(): void;
  redo(): void;
  advance(): void;
}

export function historyControls(view: ControlsView): (HTMLElement | null)[] {
  const undo = nextUndo(view.history);
  const redo = nextRedo(view.history);
  const round = view.game.round;
  return [
    h("h2", { id: "history-h", class: "visually-hidden" }, t("history")),
    h(
      "div",
      { class: "history-buttons" },
      h(
        "button",
        { type: "button", id: "undo", disabled: view.busy || !undo, onclick: view.undo },
        undo ? t("undo", { what: describeChange(undo, view.game) }) : t("nothing_to_undo"),
      ),
      h(
        "button",
        { type: "button", id: "redo", disabled: view.busy || !redo, onclick: view.redo },
        redo ? t("redo", { what: describeChange(redo, view.game) }) : t("nothing_to_redo"),
      ),
    ),
    h("p", { class: "small muted" }, withRules(t("history_hint"))),
    round
      ? h(
          "div",
          { class: "round-row" },
          h("p", { id: "round", "data-round": round.number, "data-phase": round.phase }, roundText(round)),
          nextRound(round)
            ? h("button", { type: "button", id: "advance-round", disabled: view.busy, onclick: view.advance }, t("advance_to", { what: nextRound(round)! }))
            : h("p", { class: "muted small" }, withRules(t("last_round_done"))),
        )
      : null,
    view.error ? errorBox(view.error, "history-error") : null,
  ];
}

export function roundText(round: Round): string {
  return round.phase === "report" ? t("round_report", { r: round.number }) : t("round_play", { r: round.number });
}

/** Where a round advance goes (R-RND-1): round 2, 4 or 6 to its report phase, any other
 * round (and a report phase) to the next round; none after round 6's report. */
function nextRound(round: Round): string | null {
  if (round.phase === "play" && round.number % 2 === 0) return t("ch_report_phase", { r: round.number });
  if (round.number >= 6) return null;
  return t("ch_round", { r: round.number + 1 });
}

export interface AdminView {
  gameId: string;
  recoveryCode: string | null;
  confirming: boolean;
  busy: boolean;
  error: unknown;
  forgetCode(): void;
  askDelete(): void;
  confirmDelete(): void;
  cancelDelete(): void;
}

export function adminSection(view: AdminView): (HTMLElement | null)[] {
  const recoverAt = pageUrl(`/recover/${encodeURIComponent(view.gameId)}`);
  return [
    h("h2", { id: "admin-h" }, t("host_seat")),
    h(
      "details",
      { class: "recovery", "data-key": "recovery" },
      h("summary", {}, t("recovery_title")),
      h("p", { class: "small" }, t("recovery_hint")),
      view.recoveryCode
        ? [
            h("p", {}, h("code", { id: "recovery-code", class: "code" }, view.recoveryCode)),
            h("button", { type: "button", id: "forget-code", onclick: view.forgetCode }, t("forget_code")),
          ]
        : h("p", { class: "muted small" }, t("recovery_not_here")),
      h("p", { class: "small" }, t("recovery_where")),
      h("input", { type: "text", readonly: true, value: recoverAt, class: "invite-link", id: "recovery-link", "aria-label": t("recovery_where") }),
    ),
    h("h3", {}, t("delete_title")),
    view.confirming
      ? h(
          "div",
          { class: "confirm", role: "alertdialog", "aria-labelledby": "delete-q" },
          h("p", { id: "delete-q", class: "warn" }, t("delete_question")),
          h(
            "div",
            { class: "choice" },
            h("button", { type: "button", class: "danger", id: "delete-confirm", disabled: view.busy, onclick: view.confirmDelete }, t("delete_confirm")),
            h("button", { type: "button", id: "delete-cancel", onclick: view.cancelDelete }, t("delete_cancel")),
          ),
        )
      : h("button", { type: "button", id: "delete-game", onclick: view.askDelete }, t("delete_game")),
    view.error ? errorBox(view.error, "admin-error") : null,
  ];
}
