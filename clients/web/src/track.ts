// The Faith track: 0..15, each step with its VP, the report thresholds, and each player's disc.
import { disc, type FaithTrack, type Game, type Player } from "./widgets.js";
import { h } from "./dom.js";
import { roman, t } from "./i18n.js";

export function faithTrack(
  game: Game,
  track: FaithTrack,
  onTap?: { player: Player; set: (faith: number) => void },
): HTMLElement {
  const cells = track.steps.map((step) => {
    const here = game.players.filter((p) => p.faith === step.faith);
    const marks = track.periods.filter((p) => p.threshold === step.faith);
    const content = [
      h("span", { class: "step-n" }, step.faith),
      h("span", { class: "step-vp" }, t("step_vp", { vp: step.victory_points })),
      marks.length
        ? h("span", { class: "step-mark", title: marks.map((m) => t("threshold", { n: m.threshold })).join(", ") },
            marks.map((m) => roman(m.period)).join(" "))
        : null,
      h("span", { class: "step-discs" }, here.map((p) => disc(game, p))),
    ];
    const cls = `step${marks.length ? " threshold" : ""}`;
    if (!onTap) return h("li", { class: cls, "data-faith": step.faith }, ...content);
    return h(
      "li",
      { class: cls, "data-faith": step.faith },
      h(
        "button",
        {
          type: "button",
          id: `step-${step.faith}`,
          "aria-label": t("set_faith_aria", { name: onTap.player.name, n: step.faith, vp: step.victory_points }),
          "aria-pressed": String(onTap.player.faith === step.faith),
          onclick: () => onTap.set(step.faith),
        },
        ...content,
      ),
    );
  });
  return h("ol", { class: "track", "aria-label": t("faith_track") }, cells);
}
