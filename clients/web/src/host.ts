// The host's screen: the tiles, the Faith track entered by tapping, the coming report with
// who may choose and what supporting pays, the resolution for everyone, undo and redo, the
// round, each player's excommunications and invite, the calculators, the final score, the
// host seat's recovery code and the game's deletion. It renders the snapshots of the SDK's
// GameState: nothing is read again after a change, its own or another device's.
import { endOf, isProblem, type GameSnapshot, type GameState, type StateEnd, type VaticanReportClient } from "@vatican-report/client";
import { anonymous, openGame, tokens, withFreshRetry, type Connection } from "./api.js";
import { calculators } from "./calculators.js";
import { adminSection, historyControls } from "./host-controls.js";
import { playersSection } from "./host-players.js";
import { reportSection, type Undecided } from "./host-report.js";
import { disc, endedNotice, header, outcomeView, tileCard, type FaithTrack, type Game, type Outcome } from "./widgets.js";
import { h, replace } from "./dom.js";
import { roman, t } from "./i18n.js";
import { finalScores } from "./scores.js";
import { faithTrack } from "./track.js";

export class HostScreen {
  private client!: VaticanReportClient;
  private state!: GameState;
  private snapshot!: GameSnapshot;
  private track!: FaithTrack;
  private preview = new Map<string, Outcome>();
  private previewKey = "";
  private selected = "";
  private connection: Connection = "connecting";
  private errors: { report: unknown; history: unknown; admin: unknown; invite: { playerId: string; error: unknown } | null } = {
    report: null,
    history: null,
    admin: null,
    invite: null,
  };
  private busy = false;
  private confirmingDelete = false;
  private finished: StateEnd | null = null;
  private readonly openInvites = new Set<string>();
  private undecided: Undecided = "wait";
  private close: () => void = () => undefined;
  // Set when another screen takes the page: a start still on its way then renders nothing.
  private stopped = false;
  private readonly parts = {
    header: h("div"),
    history: h("section", { class: "card history", "aria-labelledby": "history-h" }),
    tiles: h("section", { class: "tiles", "aria-label": t("tiles") }),
    track: h("section", { class: "card", "aria-labelledby": "track-h" }),
    report: h("section", { class: "card", id: "report", "aria-labelledby": "report-h" }),
    outcomes: h("section", { class: "outcomes-list", "aria-live": "polite" }),
    players: h("section", { class: "card", "aria-labelledby": "players-h" }),
    tools: h("div", { class: "tools" }),
    admin: h("section", { class: "card admin", "aria-labelledby": "admin-h" }),
  };

  constructor(
    private readonly root: HTMLElement,
    private readonly gameId: string,
    private readonly token: string,
  ) {}

  async start(): Promise<void> {
    let track, live;
    try {
      [track, live] = await Promise.all([
        anonymous().getFaithTrack(),
        openGame(this.gameId, this.token, (state) => {
          this.connection = state;
          this.renderHeader();
        }),
      ]);
    } catch (error) {
      if (this.stopped) return; // another screen took the page meanwhile
      // Opened after the host seat moved to another device, or after the game was deleted.
      const end = endOf(error);
      if (end.reason === "failed") throw error;
      return this.ended(end);
    }
    if (this.stopped) return live.close();
    this.track = track.data;
    this.client = live.client;
    this.state = live.state;
    this.close = live.close;
    this.snapshot = live.state.current!;
    this.selected = this.game.turn_order[0] ?? "";
    this.mount();
    live.state.subscribe((snapshot, change) => {
      this.snapshot = snapshot;
      if (change.kind === "ended") this.ended(change.end);
      else if (this.root.isConnected) this.render();
    });
  }

  stop(): void {
    this.stopped = true;
    this.close();
  }

  private get game(): Game {
    return this.snapshot.game;
  }

  /** What each player would get by supporting, from the stateless calculation, asked
   * again only when what it depends on changed. */
  private updatePreview(): void {
    const game = this.game;
    const open = game.reports.find((r) => r.status === "open");
    const players = game.turn_order.map((id) => {
      const player = game.players.find((p) => p.id === id)!;
      return { id, faith: player.faith, leaders: player.leaders };
    });
    const key = JSON.stringify([open?.period, players]);
    if (key === this.previewKey) return;
    this.previewKey = key;
    if (!open) {
      this.preview = new Map();
      return;
    }
    anonymous()
      .calculateVaticanReport({ period: open.period, tile_id: game.tiles[String(open.period)]?.id ?? null, default_choice: "support", players })
      .then((answer) => {
        if (this.previewKey !== key) return;
        this.preview = new Map(answer.data.outcomes.map((o) => [o.player_id, o]));
        this.renderReport();
      })
      .catch(() => undefined);
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
        p.history,
        p.tiles,
        p.track,
        h("div", { class: "columns" }, h("div", {}, p.report, p.outcomes), p.players),
        p.tools,
        p.admin,
      ),
    );
    this.render();
    replace(p.tools, calculators(() => this.game, this.client, this.gameId), finalScores(() => this.game, this.client, this.gameId));
  }

  private render(): void {
    this.renderHeader();
    const game = this.game;
    this.updatePreview();
    replace(
      this.parts.history,
      historyControls({
        game,
        history: this.snapshot.history,
        busy: this.busy,
        error: this.errors.history,
        undo: () => void this.act("history", () => this.client.undoChange(this.gameId)),
        redo: () => void this.act("history", () => this.client.redoChange(this.gameId)),
        advance: () => void this.act("history", () => this.client.advanceRound(this.gameId)),
      }),
    );
    replace(this.parts.tiles, [1, 2, 3].map((period) => tileCard(game, period)));
    this.renderTrack();
    this.renderReport();
    this.renderOutcomes();
    replace(
      this.parts.players,
      playersSection({
        game,
        gameId: this.gameId,
        invites: tokens.invites(this.gameId),
        open: this.openInvites,
        busy: this.busy,
        error: this.errors.invite,
        // A Faith change adds to what the player has when it is stored, whatever else
        // changed: no If-Match, and its Idempotency-Key makes a retry add once.
        changeFaith: (id, delta) => void this.act("report", () => this.client.changePlayerFaith(this.gameId, id, { delta }, { ifMatch: false })),
        reinvite: (id) => void this.reinvite(id),
      }),
    );
    this.renderAdmin();
  }

  private renderHeader(): void {
    const rerender = () => (this.finished ? this.ended(this.finished) : this.mount());
    replace(this.parts.header, header(t("game", { id: this.gameId.slice(0, 8) }), this.connection, rerender));
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

  private renderReport(): void {
    replace(
      this.parts.report,
      reportSection({
        game: this.game,
        snapshot: this.snapshot,
        track: this.track,
        preview: this.preview,
        busy: this.busy,
        undecided: this.undecided,
        error: this.problemText(this.errors.report),
        setUndecided: (value) => {
          this.undecided = value;
        },
        decide: (period, playerId, choice) =>
          void this.act("report", () =>
            withFreshRetry(this.state, () => this.client.setReportDecision(this.gameId, period, playerId, { choice })),
          ),
        // If-Match (the SDK sends the last version this screen knows): a resolution computed
        // on a stale view is refused with 412, and the screen shows what changed.
        resolve: (period) =>
          void this.act("report", () =>
            this.client.resolveReport(this.gameId, period, this.undecided === "wait" ? {} : { default_choice: this.undecided }),
          ),
      }),
    );
  }

  private renderOutcomes(): void {
    const resolved = ([3, 2, 1] as const).map((period) => this.snapshot.reports[period]).filter((r) => r.status === "resolved");
    replace(
      this.parts.outcomes,
      resolved.map((report) =>
        h(
          "section",
          { class: "card", "data-resolved": report.period, "aria-labelledby": `outcome-h-${report.period}` },
          h("h2", { id: `outcome-h-${report.period}` }, t("outcomes", { p: roman(report.period) })),
          h("ul", { class: "outcomes" }, (report.outcomes ?? []).map((o) => outcomeView(this.game, o, report.period, "h3"))),
        ),
      ),
    );
  }

  private renderAdmin(): void {
    replace(
      this.parts.admin,
      adminSection({
        gameId: this.gameId,
        recoveryCode: tokens.recoveryCode(this.gameId),
        confirming: this.confirmingDelete,
        busy: this.busy,
        error: this.errors.admin,
        forgetCode: () => {
          tokens.forgetRecoveryCode(this.gameId);
          this.renderAdmin();
        },
        askDelete: () => {
          this.confirmingDelete = true;
          this.renderAdmin();
          document.getElementById("delete-cancel")?.focus();
        },
        cancelDelete: () => {
          this.confirmingDelete = false;
          this.renderAdmin();
        },
        // Deleting is for good, whatever changed meanwhile: no If-Match. The state then
        // ends (the game is gone) and the screen says so.
        confirmDelete: () => void this.act("admin", () => this.client.deleteGame(this.gameId, { ifMatch: false })),
      }),
    );
  }

  private setFaith(playerId: string, faith: number): Promise<void> {
    const clamped = Math.max(0, Math.min(this.track.max_faith, faith));
    return this.act("report", () => withFreshRetry(this.state, () => this.client.setPlayerFaith(this.gameId, playerId, { faith: clamped })));
  }

  /** A new token for a player's seat: the old phone's seat closes, the new link is shown. */
  private async reinvite(playerId: string): Promise<void> {
    this.errors.invite = null;
    try {
      const issued = await this.client.issueSeatToken(this.gameId, playerId, { ifMatch: false });
      tokens.setInvite(this.gameId, playerId, issued.data.token);
      this.openInvites.add(playerId);
    } catch (error) {
      this.errors.invite = { playerId, error };
    }
    if (!this.state.ended) this.render();
  }

  /** Runs a change; its result arrives as an event of the state, which redraws. */
  private async act(where: "report" | "history" | "admin", work: () => Promise<unknown>): Promise<void> {
    this.busy = true;
    this.errors.report = this.errors.history = this.errors.admin = null;
    this.render();
    try {
      await work();
    } catch (error) {
      this.errors[where] = error;
    } finally {
      this.busy = false;
    }
    if (!this.state.ended && this.root.isConnected) this.render();
  }

  private problemText(error: unknown): unknown {
    if (isProblem(error, "decisions-pending")) {
      const pending = (error.problem.pending as string[] | undefined) ?? [];
      const names = pending.map((id) => this.game.players.find((p) => p.id === id)?.name ?? id);
      return new Error(t("pending", { names: names.join(", ") }));
    }
    if (isProblem(error, "version-mismatch")) return new Error(t("changed_meanwhile"));
    return error;
  }

  /** The game is gone, this device's host seat closed, or newer devices of the seat took
   * its place: the screen says so, and what this device kept for the game is dropped when
   * it can no longer be used. */
  private ended(end: StateEnd): void {
    if (end.reason === "closed") return;
    this.finished = end;
    if (end.reason === "deleted") tokens.forget(this.gameId);
    replace(
      this.root,
      this.parts.header,
      h(
        "main",
        { id: "main", tabindex: "-1", class: "host" },
        h("h1", {}, t("app_title")),
        ...endedNotice(end, "host_seat_closed"),
        h("p", {}, h("a", { href: "#/", id: "new-game" }, t("new_game"))),
      ),
    );
    this.renderHeader();
  }
}
