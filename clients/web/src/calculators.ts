// The gain and action-value calculators for one player of the game: the service applies the
// player's stored excommunications (and leaders) and says which rule did what.
import type { VaticanReportClient } from "@vatican-report/client";
import { errorBox, type Game } from "./widgets.js";
import { field, h, replace } from "./dom.js";
import { t, type Key } from "./i18n.js";
import { ruleRef, withRules } from "./rules.js";

const SOURCES = ["action_space", "card_immediate", "card_permanent", "personal_bonus_tile", "council_privilege", "leader"] as const;
const GAIN_RESOURCES = ["coins", "wood", "stone", "servants", "military_points", "faith_points"] as const;
const PRIVILEGES: Record<string, Record<string, number>> = {
  wood_stone: { wood: 1, stone: 1 },
  servants: { servants: 2 },
  coins: { coins: 2 },
  military: { military_points: 2 },
  faith: { faith_points: 1 },
};
const ACTIONS = ["harvest", "production", "territory", "building", "character", "venture", "market", "council_palace"] as const;
const MEMBERS = ["black", "white", "orange", "neutral"] as const;

const NO_RESOURCES = { coins: 0, wood: 0, stone: 0, servants: 0, military_points: 0, faith_points: 0, victory_points: 0 };
const resourcesOf = (partial: Record<string, number>) => ({ ...NO_RESOURCES, ...partial });

function number(id: string, value: number, min: number, max: number): HTMLInputElement {
  return h("input", { type: "number", id, value, min, max, inputmode: "numeric" }) as HTMLInputElement;
}

function select(id: string, options: readonly string[], label: (value: string) => string): HTMLSelectElement {
  return h("select", { id }, options.map((value) => h("option", { value }, label(value)))) as HTMLSelectElement;
}

function playerSelect(game: Game, id: string): HTMLSelectElement {
  return h("select", { id }, game.players.map((p) => h("option", { value: p.id }, p.name))) as HTMLSelectElement;
}

function changeText(change: Record<string, number>): string {
  return Object.entries(change)
    .map(([resource, n]) => `${n > 0 ? "+" : ""}${n} ${t(`res_${resource}` as Key)}`)
    .join(", ");
}

export function calculators(game: () => Game, client: VaticanReportClient, gameId: string): HTMLElement {
  return h(
    "section",
    { class: "card", "aria-labelledby": "calc-h" },
    h("h2", { id: "calc-h" }, t("calculators")),
    h("div", { class: "calcs" }, gainsForm(game, client, gameId), actionForm(game, client)),
  );
}

function gainsForm(game: () => Game, client: VaticanReportClient, gameId: string): HTMLElement {
  const player = playerSelect(game(), "gain-player");
  const source = select("gain-source", SOURCES, (v) => t(`src_${v}` as Key));
  const amounts = GAIN_RESOURCES.map((r) => [r, number(`gain-${r}`, 0, 0, 99)] as const);
  const privilege = select("gain-privilege", ["", ...Object.keys(PRIVILEGES)], (v) =>
    v ? changeText(PRIVILEGES[v]!) : t("privilege_none"),
  );
  const out = h("div", { class: "result", "aria-live": "polite", id: "gain-result" });
  const submit = async (event: Event) => {
    event.preventDefault();
    const resources = Object.fromEntries(amounts.map(([r, input]) => [r, Number(input.value) || 0]).filter(([, n]) => n));
    try {
      const answer = await client.calculatePlayerGains(gameId, player.value, {
        gains: [
          {
            source: { kind: source.value as (typeof SOURCES)[number] },
            resources: resourcesOf(resources),
            privileges: privilege.value ? [resourcesOf(PRIVILEGES[privilege.value]!)] : [],
          },
        ],
      });
      const result = answer.data;
      replace(
        out,
        h("p", {}, h("strong", {}, `${t("result_total")}: `), changeText(result.total) || "0"),
        h(
          "ul",
          { class: "steps" },
          result.gains.flatMap((gain) =>
            gain.steps.map((step) =>
              h("li", {}, ruleRef(step.rule), " ", changeText(step.change), step.note ? [" (", withRules(step.note), ")"] : ""),
            ),
          ),
        ),
      );
    } catch (error) {
      replace(out, errorBox(error, "gain-error"));
    }
  };
  return h(
    "form",
    { class: "calc", onsubmit: submit, "aria-labelledby": "gains-h" },
    h("h3", { id: "gains-h" }, t("gains")),
    field(t("calc_player"), player),
    field(t("gain_source"), source),
    h("div", { class: "grid3" }, amounts.map(([r, input]) => field(t(`res_${r}` as Key), input))),
    field(t("privilege"), privilege),
    h("button", { type: "submit", id: "gain-submit" }, t("calculate")),
    out,
  );
}

function actionForm(game: () => Game, client: VaticanReportClient): HTMLElement {
  const player = playerSelect(game(), "action-player");
  const action = select("action-kind", ACTIONS, (v) => t(`act_${v}` as Key));
  const member = select("action-member", MEMBERS, (v) => t(`fm_${v}` as Key));
  const die = number("action-die", 3, 1, 6);
  const servants = number("action-servants", 0, 0, 99);
  const required = number("action-required", 1, 0, 99);
  const out = h("div", { class: "result", "aria-live": "polite", id: "action-result" });
  const submit = async (event: Event) => {
    event.preventDefault();
    const who = game().players.find((p) => p.id === player.value);
    try {
      const answer = await client.calculateActionValue({
        action: action.value as (typeof ACTIONS)[number],
        origin: "family_member",
        family_member: member.value as (typeof MEMBERS)[number],
        die: member.value === "neutral" ? null : Number(die.value) || 1,
        servants_spent: Number(servants.value) || 0,
        large_space: false,
        modifier: 0,
        required_value: required.value === "" ? null : Number(required.value),
        excommunications: (who?.excommunications ?? []).map((ex) => ex.tile_id),
      });
      const result = answer.data;
      replace(
        out,
        h(
          "p",
          {},
          h("strong", {}, t("value", { v: result.value })),
          ` · ${result.allowed ? t("allowed") : t("forbidden_action")}`,
          result.reaches_required === null || result.reaches_required === undefined
            ? ""
            : ` · ${result.reaches_required ? t("reaches") : t("short")}`,
        ),
        h(
          "ul",
          { class: "steps" },
          result.steps.map((step) =>
            h("li", {}, ruleRef(step.rule), ` ${step.change >= 0 ? "+" : ""}${step.change} → ${step.value}`, step.note ? [" (", withRules(step.note), ")"] : ""),
          ),
        ),
      );
    } catch (error) {
      replace(out, errorBox(error, "action-error"));
    }
  };
  return h(
    "form",
    { class: "calc", onsubmit: submit, "aria-labelledby": "action-h" },
    h("h3", { id: "action-h" }, t("action_value")),
    field(t("calc_player"), player),
    field(t("action"), action),
    h("div", { class: "grid3" }, field(t("family_member"), member), field(t("die"), die), field(t("servants_spent"), servants)),
    field(t("required_value"), required),
    h("button", { type: "submit", id: "action-submit" }, t("calculate")),
    out,
  );
}
