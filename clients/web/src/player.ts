// A player's phone: their own Faith, their support/refuse choice when they may choose, and
// the result of each report, live.
import { endOf, type GameEvent, type GameSnapshot, type GameState, type StateEnd, type VaticanReportClient } from "@vatican-report/client";
import { anonymous, openGame, withFreshRetry, type Connection } from "./api.js";
import { changeOf, describeChange } from "./changes.js";
import {
  disc,
  endedNotice,
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
import { reportDue, roundOf, signalsOf } from "./due.js";
import { roman, t } from "./i18n.js";
import { withRules } from "./rules.js";

export class PlayerScreen {
  private client!: VaticanReportClient;
  private state!: GameState;
  private snapshot!: GameSnapshot;
  private supportPays: number | null = null;
  private supportKey = "";
  // What the host last undid or redid, told on the phone until the next change.
  private notice: string | null = null;
  private connection: Connection = "connecting";
  private error: unknown = null;
  private busy = false;
  private close: () => void = () => undefined;
  // Set when another screen takes the page: a start still on its way then renders nothing.
  private stopped = false;
  private readonly headerPart = h("div");
  private readonly body = h("main", { id: "main", tabindex: "-1", class: "phone" });

  constructor(
    private readonly root: HTMLElement,
    private readonly gameId: string,
    private readonly playerId: string,
    private readonly token: string,
  ) {}

  async start(): Promise<void> {
    let live;
    try {
      live = await openGame(this.gameId, this.token, (state) => {
        this.connection = state;
        this.renderHeader();
      });
    } catch (error) {
      if (this.stopped) return; // another screen took the page meanwhile
      // Opened after the seat moved to another phone, or after the game was deleted.
      const end = endOf(error);
      if (end.reason === "failed") throw error;
      replace(this.root, this.headerPart, this.body);
      return this.ended(end);
    }
    if (this.stopped) return live.close();
    this.client = live.client;
    this.state = live.state;
    this.close = live.close;
    this.snapshot = live.state.current!;
    replace(this.root, this.headerPart, this.body);
    live.state.subscribe((snapshot, change) => {
      this.snapshot = snapshot;
      if (change.kind === "ended") return this.ended(change.end);
      if (change.kind === "event") this.notice = noticeOf(change.event, snapshot);
      this.render();
    });
  }

  stop(): void {
    this.stopped = true;
    this.close();
  }

  private get game(): Game {
    return this.snapshot.game;
  }

  /** The open report of the game, if any. */
  private get report(): Report | null {
    const open = this.game.reports.find((r) => r.status === "open");
    return open ? this.snapshot.reports[open.period as 1 | 2 | 3] : null;
  }

  /** What supporting would pay this player, from the stateless calculation, asked again
   * only when what it depends on changed. */
  private updateSupportPays(): void {
    const me = this.me();
    const report = this.report;
    const key = JSON.stringify([report?.period, me?.faith, me?.leaders]);
    if (key === this.supportKey) return;
    this.supportKey = key;
    this.supportPays = null;
    if (!report || !me) return;
    anonymous()
      .calculateVaticanReport({
        period: report.period,
        tile_id: this.game.tiles[String(report.period)]?.id ?? null,
        players: [{ id: me.id, faith: me.faith, leaders: me.leaders, choice: "support" }],
      })
      .then((answer) => {
        if (this.supportKey !== key) return;
        this.supportPays = answer.data.outcomes[0]?.victory_points.total ?? null;
        this.render();
      })
      .catch(() => undefined);
  }

  private renderHeader(): void {
    replace(this.headerPart, header(this.me()?.name ?? "", this.connection, () => (this.finished ? this.ended(this.finished) : this.render())));
  }

  private me() {
    return this.snapshot?.game.players.find((p) => p.id === this.playerId);
  }

  private finished: StateEnd | null = null;

  private async decide(choice: "support" | "refuse"): Promise<void> {
    const report = this.report;
    if (!report) return;
    const period = report.period as 1 | 2 | 3;
    this.busy = true;
    this.error = null;
    this.render();
    try {
      await withFreshRetry(this.state, () => this.client.setReportDecision(this.gameId, period, this.playerId, { choice }));
    } catch (error) {
      this.error = error;
    } finally {
      this.busy = false;
    }
    if (!this.state.ended) this.render();
  }

  private async setFaith(faith: number): Promise<void> {
    this.error = null;
    try {
      await withFreshRetry(this.state, () =>
        this.client.setPlayerFaith(this.gameId, this.playerId, { faith: Math.max(0, Math.min(15, faith)) }),
      );
    } catch (error) {
      this.error = error;
    }
    if (!this.state.ended) this.render();
  }

  /** The game is gone, this phone's seat closed (the host gave it a new invitation), or
   * newer devices of the seat took its place. */
  private ended(end: StateEnd): void {
    if (end.reason === "closed") return;
    this.finished = end;
    this.renderHeader();
    replace(this.body, ...endedNotice(end, "seat_closed"));
  }

  private render(): void {
    this.renderHeader();
    this.updateSupportPays();
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
      this.notice ? h("p", { class: "notice card", role: "status", id: "notice" }, this.notice) : null,
      faith,
      this.reportCard(),
      ([3, 2, 1] as const)
        .filter((period) => this.snapshot.reports[period].status === "resolved")
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
    // Folded from the changes of play in effect (an undone Faith entry does not count).
    const signals = signalsOf(this.snapshot.history?.undoable ?? []);
    const due = reportDue(report.round, signals, roundOf(this.game));
    const n = report.threshold;
    if (due === null) return h("p", { id: "my-status", "data-due": "no" }, t("report_needs", { r: report.round, n }));
    const text = this.me()?.leaders.includes("martin_lutero")
      ? t("spared_ahead", { n })
      : t(due === "last_round" ? "below_threshold_round" : "below_threshold", { n });
    return h("p", { class: "warn", id: "my-status", "data-due": due }, withRules(text));
  }

  private resultCard(period: number): HTMLElement {
    const report = this.snapshot.reports[period as 1 | 2 | 3];
    const outcome: Outcome | undefined = report.outcomes?.find((o) => o.player_id === this.playerId);
    return h(
      "section",
      { class: `card result-card ${outcome?.outcome ?? ""}`, "data-result": period, "aria-labelledby": `my-result-h-${period}` },
      h("h2", { id: `my-result-h-${period}` }, t("your_result", { p: roman(period) })),
      outcome
        ? [
            h("p", { class: "big-result", "data-outcome": outcome.outcome }, outcomeLabel(outcome)),
            ...outcomeDetails(outcome, period),
          ]
        : null,
    );
  }
}

/** What the host undid or redid, in words (null for any other event: nothing to tell). */
function noticeOf(event: GameEvent, snapshot: GameSnapshot): string | null {
  if (event.type !== "change_undone" && event.type !== "change_redone") return null;
  const change = changeOf(snapshot.history, event.data.seq);
  const what = change ? describeChange(change, snapshot.game) : event.data.type;
  if (event.type === "change_undone" && event.data.type === "report_resolved" && event.data.report) {
    return t("undone_resolution", { p: roman(event.data.report.period) });
  }
  return t(event.type === "change_undone" ? "host_undid" : "host_redid", { what });
}
