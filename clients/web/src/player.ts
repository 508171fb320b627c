// A player's phone: their own Faith, their support/refuse choice when they may choose, and
// the result of each report, live.
import type { VaticanReportClient } from "@vatican-report/client";
import { anonymous, openGame, withFreshRetry, type Connection } from "./api.js";
import {
  disc,
  errorBox,
  excommunicationList,
  header,
  outcomeDetails,
  outcomeLabel,
  tileText,
  type Game,
  type Outcome,
  type Report,
} from "./widgets.js";
import { h, replace } from "./dom.js";
import { NO_SIGNALS, afterEvent, reportDue, roundOf } from "./due.js";
import { roman, t } from "./i18n.js";
import { withRules } from "./rules.js";

export class PlayerScreen {
  private client!: VaticanReportClient;
  private game!: Game;
  private report: Report | null = null;
  private readonly resolved = new Map<number, Report>();
  private supportPays: number | null = null;
  // Folded from the whole log (the phone follows it from its first event): whether the table
  // has reached the coming report, which a warning needs (due.ts).
  private signals = NO_SIGNALS;
  private connection: Connection = "connecting";
  private error: unknown = null;
  private busy = false;
  private refreshing = false;
  private dirty = false;
  private close: () => void = () => undefined;
  private readonly headerPart = h("div");
  private readonly body = h("main", { id: "main", tabindex: "-1", class: "phone" });

  constructor(
    private readonly root: HTMLElement,
    private readonly gameId: string,
    private readonly playerId: string,
    private readonly token: string,
  ) {}

  async start(): Promise<void> {
    const live = await openGame(
      this.gameId,
      this.token,
      (event) => {
        this.signals = afterEvent(this.signals, event);
        void this.refresh();
      },
      (state) => {
        this.connection = state;
        this.renderHeader();
      },
      { history: true },
    );
    this.client = live.client;
    this.game = live.game;
    this.close = live.close;
    replace(this.root, this.headerPart, this.body);
    await this.refresh();
  }

  stop(): void {
    this.close();
  }

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
    this.render();
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
    this.supportPays = null;
    const me = game.players.find((p) => p.id === this.playerId);
    if (open && me) {
      try {
        const answer = await anonymous().calculateVaticanReport({
          period: open.period,
          tile_id: game.tiles[String(open.period)]?.id ?? null,
          players: [{ id: me.id, faith: me.faith, leaders: me.leaders, choice: "support" }],
        });
        this.supportPays = answer.data.outcomes[0]?.victory_points.total ?? null;
      } catch {
        this.supportPays = null;
      }
    }
  }

  private renderHeader(): void {
    replace(this.headerPart, header(this.me()?.name ?? "", this.connection, () => this.render()));
  }

  private me() {
    return this.game?.players.find((p) => p.id === this.playerId);
  }

  private async decide(choice: "support" | "refuse"): Promise<void> {
    if (!this.report) return;
    const period = this.report.period as 1 | 2 | 3;
    this.busy = true;
    this.error = null;
    this.render();
    try {
      await withFreshRetry(
        () => this.client.setReportDecision(this.gameId, period, this.playerId, { choice }),
        () => this.client.getGame(this.gameId),
      );
    } catch (error) {
      this.error = error;
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }

  private async setFaith(faith: number): Promise<void> {
    this.error = null;
    try {
      await withFreshRetry(
        () => this.client.setPlayerFaith(this.gameId, this.playerId, { faith: Math.max(0, Math.min(15, faith)) }),
        () => this.client.getGame(this.gameId),
      );
    } catch (error) {
      this.error = error;
    }
    await this.refresh();
  }

  private render(): void {
    this.renderHeader();
    const game = this.game;
    const me = this.me();
    if (!me) {
      replace(this.body, h("p", { class: "error", role: "alert" }, t("unknown_link")));
      return;
    }
    const faith = h(
      "section",
      { class: "card faith-card", "aria-labelledby": "my-faith-h" },
      h("h2", { id: "my-faith-h" }, disc(game, me, "big"), " ", t("your_faith")),
      h("p", { class: "big-number", id: "my-faith", "data-faith": me.faith }, me.faith),
      game.players_enter_faith
        ? h(
            "div",
            { class: "faith-row" },
            h("button", { type: "button", id: "my-less", "aria-label": t("less_faith", { name: me.name }), onclick: () => void this.setFaith(me.faith - 1) }, "−"),
            h("button", { type: "button", id: "my-more", "aria-label": t("more_faith", { name: me.name }), onclick: () => void this.setFaith(me.faith + 1) }, "+"),
          )
        : null,
      h("p", { class: "small muted" }, t("report_vp", { vp: me.report_victory_points })),
    );
    replace(
      this.body,
      h("h1", { class: "visually-hidden" }, t("you_are", { name: me.name })),
      faith,
      this.reportCard(),
      [...this.resolved.keys()]
        .sort((a, b) => b - a)
        .map((period) => this.resultCard(period)),
      h(
        "section",
        { class: "card", "aria-labelledby": "my-excoms-h" },
        h("h2", { id: "my-excoms-h" }, t("excommunications")),
        excommunicationList(game, me),
      ),
    );
  }

  private reportCard(): HTMLElement | null {
    const report = this.report;
    const me = this.me()!;
    if (!report) return h("section", { class: "card" }, h("p", {}, t("game_over")));
    const period = report.period;
    const tile = this.game.tiles[String(period)];
    const decision = report.decisions.find((d) => d.player_id === this.playerId);
    const eligible = decision?.eligible ?? false;
    let body: (HTMLElement | string | null)[];
    if (!eligible) {
      body = [this.shortOfFaith(report)];
    } else if (period === 3) {
      body = [h("p", { id: "my-status" }, withRules(t("no_decisions_p3")))];
    } else {
      body = [
        h("p", {}, t("choose_hint", { vp: this.supportPays ?? "?", tile: tile?.id ?? "" })),
        h(
          "div",
          { class: "choice big-choice", role: "group", "aria-label": t("your_choice", { p: roman(period) }) },
          (["support", "refuse"] as const).map((choice) =>
            h(
              "button",
              {
                type: "button",
                id: `my-${choice}`,
                class: choice === "support" ? "primary" : "",
                "aria-pressed": String(decision?.choice === choice),
                disabled: this.busy,
                onclick: () => void this.decide(choice),
              },
              t(choice),
            ),
          ),
        ),
        decision?.choice ? h("p", { id: "my-status", role: "status" }, t("chosen", { c: t(decision.choice) })) : null,
      ];
    }
    return h(
      "section",
      { class: "card", "aria-labelledby": "my-report-h", "data-period": period },
      h("h2", { id: "my-report-h" }, t("report_title", { p: roman(period) })),
      h("p", { class: "muted small" }, `${t("faith")} ${me.faith} · ${t("threshold", { n: report.threshold })}`),
      tile ? h("div", { class: "tile small-tile" }, h("strong", {}, tile.id), tileText(tile)) : null,
      ...body,
      eligible ? h("p", { class: "small muted" }, t("waiting_host")) : null,
      this.error ? errorBox(this.error) : null,
    );
  }

  /** Short of Faith: a warning only when the report is due (due.ts); before, what it needs. */
  private shortOfFaith(report: Report): HTMLElement {
    const due = reportDue(report.round, this.signals, roundOf(this.game));
    const n = report.threshold;
    if (due === null) return h("p", { id: "my-status", "data-due": "no" }, t("report_needs", { r: report.round, n }));
    const text = this.me()?.leaders.includes("martin_lutero")
      ? t("spared_ahead", { n })
      : t(due === "last_round" ? "below_threshold_round" : "below_threshold", { n });
    return h("p", { class: "warn", id: "my-status", "data-due": due }, withRules(text));
  }

  private resultCard(period: number): HTMLElement {
    const report = this.resolved.get(period)!;
    const outcome: Outcome | undefined = report.outcomes?.find((o) => o.player_id === this.playerId);
    return h(
      "section",
      { class: `card result-card ${outcome?.outcome ?? ""}`, "data-result": period, "aria-labelledby": `my-result-h-${period}` },
      h("h2", { id: `my-result-h-${period}` }, t("your_result", { p: roman(period) })),
      outcome
        ? [
            h("p", { class: "big-result", "data-outcome": outcome.outcome }, outcomeLabel(outcome)),
            ...outcomeDetails(outcome),
          ]
        : null,
    );
  }
}
