// The host's screen: the tiles, the Faith track entered by tapping, the coming report with
// who may choose and what supporting pays, the resolution for everyone, each player's
// excommunications and invite, the calculators and the final score.
import { isProblem, type VaticanReportClient } from "@vatican-report/client";
import { anonymous, inviteUrl, openGame, tokens, withFreshRetry, type Connection } from "./api.js";
import { calculators } from "./calculators.js";
import {
  disc,
  errorBox,
  excommunicationList,
  header,
  nameOf,
  outcomeView,
  tileCard,
  type FaithTrack,
  type Game,
  type Outcome,
  type Report,
} from "./widgets.js";
import { h, replace } from "./dom.js";
import { roman, t, type Key } from "./i18n.js";
import { qrSvg } from "./qr.js";
import { withRules } from "./rules.js";
import { finalScores } from "./scores.js";
import { faithTrack } from "./track.js";

type Undecided = "wait" | "support" | "refuse";

export class HostScreen {
  private client!: VaticanReportClient;
  private game!: Game;
  private track!: FaithTrack;
  private report: Report | null = null;
  private readonly resolved = new Map<number, Report>();
  private preview = new Map<string, Outcome>();
  private selected = "";
  private connection: Connection = "connecting";
  private error: unknown = null;
  private busy = false;
  private undecided: Undecided = "wait";
  private refreshing = false;
  private dirty = false;
  private close: () => void = () => undefined;
  private readonly parts = {
    header: h("div"),
    tiles: h("section", { class: "tiles", "aria-label": t("tiles") }),
    track: h("section", { class: "card", "aria-labelledby": "track-h" }),
    report: h("section", { class: "card", id: "report", "aria-labelledby": "report-h" }),
    outcomes: h("section", { class: "outcomes-list", "aria-live": "polite" }),
    players: h("section", { class: "card", "aria-labelledby": "players-h" }),
    tools: h("div", { class: "tools" }),
  };

  constructor(
    private readonly root: HTMLElement,
    private readonly gameId: string,
    private readonly token: string,
  ) {}

  async start(): Promise<void> {
    const [track, live] = await Promise.all([
      anonymous().getFaithTrack(),
      openGame(
        this.gameId,
        this.token,
        () => void this.refresh(),
        (state) => {
          this.connection = state;
          this.renderHeader();
        },
      ),
    ]);
    this.track = track.data;
    this.client = live.client;
    this.game = live.game;
    this.close = live.close;
    this.selected = this.game.turn_order[0] ?? "";
    await this.refresh();
    this.mount();
  }

  stop(): void {
    this.close();
  }

  /** Reads the game again (coalescing events that arrive meanwhile) and redraws. */
  async refresh(): Promise<void> {
    // Events that arrive before start() has the client are covered by its own first read.
    if (!this.client) return;
    if (this.refreshing) {
      this.dirty = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.dirty = false;
        await this.load();
      } while (this.dirty);
    } catch (error) {
      this.error = error;
    } finally {
      this.refreshing = false;
    }
    if (this.root.isConnected) this.render();
  }

  private async load(): Promise<void> {
    const game = (await this.client.getGame(this.gameId)).data;
    for (const summary of game.reports) {
      if (summary.status === "resolved" && !this.resolved.has(summary.period)) {
        this.resolved.set(summary.period, (await this.client.getReport(this.gameId, summary.period as 1 | 2 | 3)).data);
      }
    }
    const open = game.reports.find((r) => r.status === "open");
    this.report = open ? (await this.client.getReport(this.gameId, open.period as 1 | 2 | 3)).data : null;
    this.game = game;
    this.preview = open ? await this.previewSupport(game, open.period) : new Map();
  }

  /** What each player would get by supporting, from the stateless calculation. */
  private async previewSupport(game: Game, period: number): Promise<Map<string, Outcome>> {
    try {
      const answer = await anonymous().calculateVaticanReport({
        period,
        tile_id: game.tiles[String(period)]?.id ?? null,
        default_choice: "support",
        players: game.turn_order.map((id) => {
          const player = game.players.find((p) => p.id === id)!;
          return { id, faith: player.faith, leaders: player.leaders };
        }),
      });
      return new Map(answer.data.outcomes.map((o) => [o.player_id, o]));
    } catch {
      return new Map();
    }
  }

  private mount(): void {
    const p = this.parts;
    replace(
      this.root,
      p.header,
      h(
        "main",
        { id: "main", tabindex: "-1", class: "host" },
        h("h1", { class: "visually-hidden" }, t("app_title")),
        p.tiles,
        p.track,
        h("div", { class: "columns" }, h("div", {}, p.report, p.outcomes), p.players),
        p.tools,
      ),
    );
    this.render();
    replace(p.tools, calculators(() => this.game, this.client, this.gameId), finalScores(() => this.game, this.client, this.gameId));
  }

  private render(): void {
    this.renderHeader();
    const game = this.game;
    replace(this.parts.tiles, [1, 2, 3].map((period) => tileCard(game, period)));
    this.renderTrack();
    this.renderReport();
    this.renderOutcomes();
    this.renderPlayers();
  }

  private renderHeader(): void {
    replace(this.parts.header, header(t("game", { id: this.gameId.slice(0, 8) }), this.connection, () => this.rerenderAll()));
  }

  private rerenderAll(): void {
    this.mount();
  }

  private renderTrack(): void {
    const game = this.game;
    const player = game.players.find((p) => p.id === this.selected) ?? game.players[0]!;
    const chooser = h(
      "div",
      { role: "group", "aria-labelledby": "faith-for", class: "chips" },
      h("span", { id: "faith-for" }, t("faith_for")),
      game.players.map((p) =>
        h(
          "button",
          {
            type: "button",
            id: `pick-${p.id}`,
            class: "chip",
            "aria-pressed": String(p.id === player.id),
            onclick: () => {
              this.selected = p.id;
              this.renderTrack();
            },
          },
          disc(game, p),
          ` ${p.name} · ${p.faith}`,
        ),
      ),
    );
    replace(
      this.parts.track,
      h("h2", { id: "track-h" }, t("faith_track")),
      chooser,
      faithTrack(game, this.track, { player, set: (faith) => void this.setFaith(player.id, faith) }),
    );
  }

  private async act(work: () => Promise<unknown>): Promise<void> {
    this.busy = true;
    this.error = null;
    this.renderReport();
    try {
      await work();
    } catch (error) {
      this.error = error;
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }

  private setFaith(playerId: string, faith: number): Promise<void> {
    const clamped = Math.max(0, Math.min(this.track.max_faith, faith));
    return this.act(() =>
      withFreshRetry(
        () => this.client.setPlayerFaith(this.gameId, playerId, { faith: clamped }),
        () => this.client.getGame(this.gameId),
      ),
    );
  }

  private decide(period: number, playerId: string, choice: "support" | "refuse"): Promise<void> {
    return this.act(() =>
      withFreshRetry(
        () => this.client.setReportDecision(this.gameId, period as 1 | 2 | 3, playerId, { choice }),
        () => this.client.getGame(this.gameId),
      ),
    );
  }

  private resolve(period: number): Promise<void> {
    const body = this.undecided === "wait" ? {} : { default_choice: this.undecided };
    // If-Match (the SDK sends the last ETag this screen read): a resolution computed on a
    // stale view is refused with 412 and the screen reads the game again.
    return this.act(() => this.client.resolveReport(this.gameId, period as 1 | 2 | 3, body));
  }

  private renderReport(): void {
    const game = this.game;
    const report = this.report;
    if (!report) {
      replace(this.parts.report, h("h2", { id: "report-h" }, t("final_scores")), h("p", {}, t("all_resolved")));
      return;
    }
    const period = report.period;
    const summary = this.track.periods.find((p) => p.period === period);
    const rows = game.turn_order.map((id) => {
      const decision = report.decisions.find((d) => d.player_id === id);
      const player = game.players.find((p) => p.id === id)!;
      const preview = this.preview.get(id);
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
                    disabled: this.busy,
                    onclick: () => void this.decide(period, id, choice),
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
      {
        id: "undecided",
        onchange: (event: Event) => {
          this.undecided = (event.target as HTMLSelectElement).value as Undecided;
        },
      },
      (["wait", "support", "refuse"] as const).map((value) =>
        h("option", { value, selected: this.undecided === value }, t(`undecided_${value}` as Key)),
      ),
    );
    replace(
      this.parts.report,
      h("h2", { id: "report-h" }, t("report_title", { p: roman(period) })),
      h(
        "p",
        { class: "muted" },
        t("report_coming", {
          p: roman(period),
          round: t("report_round", { r: summary?.report_round ?? report.round }),
          n: report.threshold,
        }),
      ),
      period === 3 ? h("p", {}, withRules(t("no_decisions_p3"))) : null,
      h("ul", { class: "decisions" }, rows),
      pending.length
        ? h("p", { class: "pending" }, t("pending", { names: pending.map((d) => nameOf(game, d.player_id)).join(", ") }))
        : null,
      period < 3 ? h("div", { class: "field inline" }, h("label", { for: "undecided" }, t("undecided")), undecidedSelect) : null,
      h(
        "button",
        { type: "button", class: "primary", id: "resolve", disabled: this.busy, onclick: () => void this.resolve(period) },
        this.busy ? t("resolving") : t("resolve", { p: roman(period) }),
      ),
      this.error ? errorBox(this.problemText(this.error)) : null,
    );
  }

  private problemText(error: unknown): unknown {
    if (isProblem(error, "decisions-pending")) {
      const pending = (error.problem.pending as string[] | undefined) ?? [];
      return new Error(t("pending", { names: pending.map((id) => nameOf(this.game, id)).join(", ") }));
    }
    if (isProblem(error, "version-mismatch")) return new Error(t("changed_meanwhile"));
    return error;
  }

  private renderOutcomes(): void {
    const periods = [...this.resolved.keys()].sort((a, b) => b - a);
    replace(
      this.parts.outcomes,
      periods.map((period) => {
        const report = this.resolved.get(period)!;
        return h(
          "section",
          { class: "card", "data-resolved": period, "aria-labelledby": `outcome-h-${period}` },
          h("h2", { id: `outcome-h-${period}` }, t("outcomes", { p: roman(period) })),
          h("ul", { class: "outcomes" }, (report.outcomes ?? []).map((o) => outcomeView(this.game, o, "h3"))),
        );
      }),
    );
  }

  private renderPlayers(): void {
    const game = this.game;
    const invites = tokens.invites(this.gameId);
    replace(
      this.parts.players,
      h("h2", { id: "players-h" }, t("players")),
      h(
        "ul",
        { class: "players" },
        game.turn_order.map((id) => {
          const player = game.players.find((p) => p.id === id)!;
          const invite = invites[id] ? inviteUrl(this.gameId, id, invites[id]) : null;
          return h(
            "li",
            { class: "player", "data-player": id },
            h("h3", {}, disc(game, player), " ", player.name),
            h(
              "div",
              { class: "faith-row" },
              h(
                "button",
                {
                  type: "button",
                  id: `less-${id}`,
                  "aria-label": t("less_faith", { name: player.name }),
                  onclick: () => void this.setFaith(id, player.faith - 1),
                },
                "−",
              ),
              h("span", { class: "faith-value", "data-faith": player.faith }, `${t("faith")} ${player.faith}`),
              h(
                "button",
                {
                  type: "button",
                  id: `more-${id}`,
                  "aria-label": t("more_faith", { name: player.name }),
                  onclick: () => void this.setFaith(id, player.faith + 1),
                },
                "+",
              ),
            ),
            player.leaders.length
              ? h("p", { class: "small" }, `${t("leaders")}: `, player.leaders.map((l) => t(`leader_${l}` as Key)).join(", "))
              : null,
            h("p", { class: "small" }, t("report_vp", { vp: player.report_victory_points })),
            h("h4", {}, t("excommunications")),
            excommunicationList(game, player),
            invite
              ? h(
                  "details",
                  { class: "invite" },
                  h("summary", {}, `${t("invite")}: ${player.name}`),
                  qrSvg(invite, `${t("invite")}: ${player.name}`),
                  h("p", { class: "small muted" }, t("invite_hint")),
                  h("input", { type: "text", readonly: true, value: invite, "aria-label": `${t("invite")}: ${player.name}`, class: "invite-link", "data-player": id }),
                  h(
                    "button",
                    {
                      type: "button",
                      onclick: (event: Event) => {
                        const button = event.currentTarget as HTMLButtonElement;
                        void navigator.clipboard?.writeText(invite).then(() => {
                          button.textContent = t("copied");
                        });
                      },
                    },
                    t("copy_link"),
                  ),
                )
              : null,
          );
        }),
      ),
    );
  }
}
