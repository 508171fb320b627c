// The final score: each player's board at the end, scored by the service with every
// excommunication the game stored, part by part.
import type { VaticanReportClient } from "@vatican-report/client";
import { disc, errorBox, nameOf, type Game } from "./widgets.js";
import { field, h, replace } from "./dom.js";
import { t, type Key } from "./i18n.js";
import { ruleRef, withRules } from "./rules.js";

const FIELDS = ["victory_points", "military_points", "territories", "characters", "venture_points", "coins", "wood", "stone", "servants"] as const;

export function finalScores(game: () => Game, client: VaticanReportClient, gameId: string): HTMLElement {
  const g = game();
  const inputs = new Map<string, Map<string, HTMLInputElement>>();
  // One group per player, its fields in a grid that reflows: a row each on a laptop, two or
  // three columns on a phone (a table of nine columns scrolled sideways there).
  const groups = g.turn_order.map((id) => {
    const player = g.players.find((p) => p.id === id)!;
    const cells = new Map<string, HTMLInputElement>();
    inputs.set(id, cells);
    return h(
      "fieldset",
      { class: "score-player", "data-player": id },
      h("legend", {}, disc(g, player), " ", player.name),
      h(
        "div",
        { class: "score-fields" },
        FIELDS.map((name) => {
          const input = h("input", {
            type: "number",
            id: `score-${id}-${name}`,
            min: 0,
            max: name === "territories" || name === "characters" ? 6 : 9999,
            value: 0,
            inputmode: "numeric",
          }) as HTMLInputElement;
          cells.set(name, input);
          return field(t(`sc_${name}` as Key), input);
        }),
      ),
    );
  });
  const out = h("div", { class: "result", "aria-live": "polite", id: "scores-result" });
  const submit = async (event: Event) => {
    event.preventDefault();
    const value = (id: string, name: string) => Number(inputs.get(id)!.get(name)!.value) || 0;
    try {
      const answer = await client.calculateGameFinalScores(gameId, {
        players: g.turn_order.map((id) => ({
          id,
          victory_points: value(id, "victory_points"),
          military_points: value(id, "military_points"),
          territories: value(id, "territories"),
          characters: value(id, "characters"),
          venture_points: value(id, "venture_points"),
          resources: { coins: value(id, "coins"), wood: value(id, "wood"), stone: value(id, "stone"), servants: value(id, "servants") },
        })),
      });
      const current = game();
      replace(
        out,
        h(
          "ol",
          { class: "scores" },
          [...answer.data.players]
            .sort((a, b) => b.total - a.total)
            .map((score) =>
              h(
                "li",
                { "data-player": score.player_id },
                h("strong", {}, `${nameOf(current, score.player_id)}: ${score.total}`),
                h(
                  "ul",
                  { class: "steps" },
                  score.parts.map((part) =>
                    h(
                      "li",
                      {},
                      ruleRef(part.rule),
                      ` ${part.part} ${part.change >= 0 ? "+" : ""}${part.change}`,
                      part.by ? ` (${part.by})` : "",
                      part.note ? [" ", withRules(part.note)] : "",
                    ),
                  ),
                ),
              ),
            ),
        ),
      );
    } catch (error) {
      replace(out, errorBox(error, "scores-error"));
    }
  };
  return h(
    "section",
    { class: "card", "aria-labelledby": "scores-h" },
    h("h2", { id: "scores-h" }, t("final_scores")),
    h("p", { class: "muted small" }, t("final_hint")),
    h(
      "form",
      { onsubmit: submit },
      groups,
      h("button", { type: "submit", class: "primary", id: "scores-submit" }, t("compute_scores")),
    ),
    out,
  );
}
