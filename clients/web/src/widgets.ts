// Pieces both screens show: the header, a tile, an outcome, an error.
import { ProblemError, NetworkError, type Schemas, type StateEnd } from "@vatican-report/client";
import type { Connection } from "./api.js";
import { h } from "./dom.js";
import { lang, pick, roman, setLang, t, type Key } from "./i18n.js";
import { ruleRef, withRules } from "./rules.js";

export type Game = Schemas["GameRead"];
export type Player = Schemas["PlayerRead"];
export type Tile = Schemas["TileRead"];
export type Report = Schemas["ReportRead"];
export type Outcome = Schemas["Outcome"];
export type FaithTrack = Schemas["FaithTrack"];

export const COLOURS = ["red", "blue", "green", "yellow", "purple"];

export function colourOf(game: Game, playerId: string): string {
  const index = game.players.findIndex((p) => p.id === playerId);
  return COLOURS[index] ?? "grey";
}

export function nameOf(game: Game, playerId: string): string {
  return game.players.find((p) => p.id === playerId)?.name ?? playerId;
}

export function disc(game: Game, player: Player, extra = ""): HTMLElement {
  return h(
    "span",
    { class: `disc ${colourOf(game, player.id)} ${extra}`, "aria-hidden": "true", title: player.name },
    Array.from(player.name)[0]?.toUpperCase() ?? "?",
  );
}

export function header(title: string, connection: Connection | null, rerender: () => void): HTMLElement {
  const langButton = (code: "en" | "it", label: string) =>
    h(
      "button",
      {
        type: "button",
        class: "lang",
        id: `lang-${code}`,
        "aria-pressed": String(lang === code),
        lang: code,
        onclick: () => {
          setLang(code);
          rerender();
        },
      },
      label,
    );
  return h(
    "header",
    { class: "top" },
    h("div", { class: "brand" }, h("strong", {}, t("app_title")), " ", h("span", { class: "muted" }, title)),
    h(
      "div",
      { class: "top-right" },
      connection ? connectionBadge(connection) : null,
      h("div", { role: "group", "aria-label": t("language"), class: "langs" }, langButton("en", "EN"), langButton("it", "IT")),
    ),
  );
}

export function connectionBadge(connection: Connection): HTMLElement {
  const key = `conn_${connection}` as Key;
  return h("span", { class: `conn ${connection}`, id: "connection", role: "status", "data-state": connection }, t(key));
}

export function tileText(tile: Tile): HTMLElement {
  return h("p", { class: "tile-text", lang }, pick(tile.text));
}

export function tileCard(game: Game, period: number, status?: string): HTMLElement {
  const tile = game.tiles[String(period)];
  const summary = game.reports.find((r) => r.period === period);
  return h(
    "article",
    { class: `tile ${summary?.status ?? ""}`, "data-period": period, "aria-label": t("period", { p: roman(period) }) },
    h("h3", {}, t("period", { p: roman(period) }), " · ", h("span", { class: "tile-id" }, tile?.id ?? "?")),
    tile ? tileText(tile) : null,
    summary ? h("p", { class: "muted small" }, t("threshold", { n: summary.threshold }), status ? ` · ${status}` : "") : null,
  );
}

export function outcomeLabel(outcome: Outcome): string {
  return t(outcome.outcome as Key);
}

export function outcomeView(game: Game, outcome: Outcome, period: number, headingLevel = "h4"): HTMLElement {
  const player = game.players.find((p) => p.id === outcome.player_id);
  return h(
    "li",
    { class: `outcome ${outcome.outcome}`, "data-player": outcome.player_id, "data-outcome": outcome.outcome },
    h(
      headingLevel,
      {},
      player ? disc(game, player) : null,
      " ",
      nameOf(game, outcome.player_id),
      ": ",
      h("span", { class: "badge" }, outcomeLabel(outcome)),
    ),
    outcomeDetails(outcome, period),
  );
}

/** What a report did to one player, and the rules that decided it (host and player views). */
export function outcomeDetails(outcome: Outcome, period: number): HTMLElement[] {
  const notes = outcome.notes ?? [];
  return [
    h(
      "p",
      {},
      t("faith_change", { a: outcome.faith_before, b: outcome.faith_after }),
      " · ",
      t("vp_gained", { vp: outcome.victory_points.total }),
      outcome.tile_id ? ` · ${t("takes_tile", { tile: outcome.tile_id })}` : "",
    ),
    h(
      "details",
      { "data-key": `steps-${period}-${outcome.player_id}` },
      h("summary", {}, t("steps_rules")),
      h("p", {}, outcome.rules.map(ruleRef)),
      notes.length ? h("ul", { class: "notes" }, notes.map((note) => h("li", {}, withRules(note)))) : null,
    ),
  ];
}

export function excommunicationList(game: Game, player: Player): HTMLElement {
  if (!player.excommunications.length) return h("p", { class: "muted" }, t("none"));
  return h(
    "ul",
    { class: "excoms" },
    player.excommunications.map((ex) => {
      const tile = game.tiles[String(ex.period)];
      return h("li", {}, h("strong", {}, ex.tile_id), " ", tile ? pick(tile.text) : "");
    }),
  );
}

export function errorText(error: unknown): string {
  if (error instanceof ProblemError) {
    if (error.slug === "not-found") return t("not_found_game");
    const detail = typeof error.problem.detail === "string" ? error.problem.detail : "";
    return `${error.problem.title}${detail ? `: ${detail}` : ""}`;
  }
  if (error instanceof NetworkError || error instanceof TypeError) return t("cannot_reach");
  return error instanceof Error ? error.message : String(error);
}

export function errorBox(error: unknown, id = "error"): HTMLElement {
  return h("p", { class: "error", role: "alert", id }, errorText(error));
}

/** What a screen shows once following ended (never for `closed`): why, in words where the
 * reason has some (`seatClosed` says it for the screen's kind of seat), else the error. A
 * screen that newer devices of its seat pushed out may follow here again, which pushes out
 * that seat's oldest follower in turn. */
export function endedNotice(end: StateEnd, seatClosed: Key): HTMLElement[] {
  const words: Partial<Record<StateEnd["reason"], Key>> = {
    deleted: "game_deleted",
    "seat-closed": seatClosed,
    superseded: "seat_superseded",
  };
  const said = words[end.reason];
  if (!said) return [errorBox("error" in end ? end.error : null, "ended")];
  const notice = [h("p", { class: "ended", role: "alert", id: "ended", "data-reason": end.reason }, t(said))];
  if (end.reason === "superseded") {
    notice.push(h("button", { type: "button", id: "follow-again", onclick: () => location.reload() }, t("follow_again")));
  }
  return notice;
}
