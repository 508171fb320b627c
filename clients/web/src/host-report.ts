// The coming report on the host's screen: every player in turn order, who may choose and what
// supporting would pay, the choices (the host may choose for a player), and the resolution.
import type { GameSnapshot } from "@vatican-report/client";
import { h } from "./dom.js";
import { roman, t, type Key } from "./i18n.js";
import { withRules } from "./rules.js";
import { disc, errorBox, nameOf, type FaithTrack, type Game, type Outcome } from "./widgets.js";

export type Undecided = "wait" | "support" | "refuse";
type Period = 1 | 2 | 3;

export interface ReportView {
  game: Game;
  snapshot: GameSnapshot;
  track: FaithTrack;
  preview: Map<string, Outcome>;
  busy: boolean;
  undecided: Undecided;
  error: unknown;
  setUndecided(value: Undecided): void;
  decide(period: Period, playerId: string, choice: "support" | "refuse"): void;
  resolve(period: Period): void;
}

export function reportSection(view: ReportView): (HTMLElement | null)[] {
  const game = view.game;
  const open = game.reports.find((r) => r.status === "open");
  if (!open) return [h("h2", { id: "report-h" }, t("final_scores")), h("p", {}, t("all_resolved"))];
  const period = open.period as Period;
  const report = view.snapshot.reports[period];
  const summary = view.track.periods.find((p) => p.period === period);
  const rows = game.turn_order.map((id) => {
    const decision = report.decisions.find((d) => d.player_id === id);
    const player = game.players.find((p) => p.id === id)!;
    const preview = view.preview.get(id);
    const eligible = decision?.eligible ?? false;
    const choiceButtons =
      eligible && period < 3
        ? h(
            "div",
            { class: "choice", role: "group", "aria-label": `${t("choice")}: ${player.name}` },
            (["support", "refuse"] as const).map((choice) =>
              h(
                "button",
                {
                  type: "button",
                  id: `decide-${id}-${choice}`,
                  "aria-pressed": String(decision?.choice === choice),
                  disabled: view.busy,
                  onclick: () => view.decide(period, id, choice),
                },
                t(choice),
              ),
            ),
          )
        : null;
    return h(
      "li",
      { class: `decision ${eligible ? "eligible" : "short"}`, "data-player": id },
      h("div", { class: "who" }, disc(game, player), " ", h("strong", {}, player.name), ` · ${t("faith")} ${player.faith}`),
      h(
        "div",
        { class: "muted small" },
        eligible ? t("eligible") : t("not_eligible"),
        eligible && preview ? ` · ${t("support_pays", { vp: preview.victory_points.total })}` : "",
        eligible && period < 3 ? ` · ${decision?.choice ? t(decision.choice as Key) : t("no_choice_yet")}` : "",
      ),
      choiceButtons,
    );
  });
  const pending = report.decisions.filter((d) => d.eligible && !d.choice && period < 3);
  const undecidedSelect = h(
    "select",
    { id: "undecided", onchange: (event: Event) => view.setUndecided((event.target as HTMLSelectElement).value as Undecided) },
    (["wait", "support", "refuse"] as const).map((value) =>
      h("option", { value, selected: view.undecided === value }, t(`undecided_${value}` as Key)),
    ),
  );
  return [
    h("h2", { id: "report-h" }, t("report_title", { p: roman(period) })),
    h(
      "p",
      { class: "muted" },
      t("report_coming", { p: roman(period), round: t("report_round", { r: summary?.report_round ?? report.round }), n: report.threshold }),
    ),
    period === 3 ? h("p", {}, withRules(t("no_decisions_p3"))) : null,
    h("ul", { class: "decisions" }, rows),
    pending.length ? h("p", { class: "pending" }, t("pending", { names: pending.map((d) => nameOf(game, d.player_id)).join(", ") })) : null,
    period < 3 ? h("div", { class: "field inline" }, h("label", { for: "undecided" }, t("undecided")), undecidedSelect) : null,
    h(
      "button",
      { type: "button", class: "primary", id: "resolve", disabled: view.busy, onclick: () => view.resolve(period) },
      view.busy ? t("resolving") : t("resolve", { p: roman(period) }),
    ),
    view.error ? errorBox(view.error) : null,
  ];
}
