// A game's state on the client, kept current by the game's events: read once (the game and
// its three reports), then each event followed live is folded into it, as the service
// folds it into its own, and every subscriber is told. A UI binds to `current` and never
// reads the game again. An event this SDK does not know (a newer service's) is never
// guessed at: the state is read again, once, and following goes on from there.
import type { VaticanReportClient } from "./client.js";
import type { FollowOptions, Follower } from "./follow.js";
import type { Game, GameEvent, Period, Report } from "./types.js";

const PERIODS: readonly Period[] = [1, 2, 3];

/** The game and its reports, each as the service would answer for it at `version`. */
export interface GameSnapshot {
  /** As `GET /v1/games/{id}` answers (`game.version` is `version`). */
  readonly game: Game;
  /** As `GET /v1/games/{id}/reports/{period}` answers, by period. */
  readonly reports: Readonly<Record<Period, Report>>;
  /** The seq of the last event folded in: the game's version. */
  readonly version: number;
}

/** Why the state changed: its first read, an event folded in, or a read again. */
export type StateChange =
  | { kind: "read" }
  | { kind: "event"; event: GameEvent }
  | { kind: "reread"; reason: "unknown-event" | "unexpected-event" | "gap"; event: GameEvent };

export type StateListener = (snapshot: GameSnapshot, change: StateChange) => void;

export interface GameStateOptions
  extends Pick<FollowOptions, "mode" | "wait" | "idleTimeoutMs" | "minPollIntervalMs" | "token" | "signal" | "onError"> {}

/** An event as received: its `type` may be one this SDK does not know. */
export type AnyEvent = GameEvent | { seq: number; type: string; at: string; data: unknown };

/**
 * The snapshot after `event`, or null when this SDK cannot fold it in (an event type it
 * does not know, or data it does not expect): read the game again then. Pure: the
 * snapshot given is not changed, and the parts the event leaves alone are shared.
 */
export function applyEvent(snapshot: GameSnapshot, event: AnyEvent): GameSnapshot | null {
  try {
    return fold(snapshot, event as GameEvent);
  } catch {
    return null;
  }
}

function fold(snapshot: GameSnapshot, event: GameEvent): GameSnapshot | null {
  let game: Game = { ...snapshot.game, version: event.seq };
  const reports: Record<Period, Report> = { ...snapshot.reports };
  switch (event.type) {
    case "faith_set": {
      const faith = new Map(event.data.changes.map((c) => [c.player_id, c.to]));
      game = withPlayers(game, (p) => (faith.has(p.id) ? { ...p, faith: faith.get(p.id)! } : p));
      break;
    }
    case "leaders_set":
      game = withPlayers(game, (p) => (p.id === event.data.player_id ? { ...p, leaders: [...event.data.to] } : p));
      break;
    case "turn_order_set":
      game = { ...game, turn_order: [...event.data.to] };
      break;
    case "decision_set": {
      const { period, player_id, choice } = event.data;
      const report = reports[period];
      if (!report.decisions.some((d) => d.player_id === player_id)) return null;
      reports[period] = {
        ...report,
        decisions: report.decisions.map((d) => (d.player_id === player_id ? { ...d, choice } : d)),
      };
      break;
    }
    case "report_resolved": {
      const { period, outcomes } = event.data;
      const byPlayer = new Map(outcomes.map((o) => [o.player_id, o]));
      game = withPlayers(game, (p) => {
        const outcome = byPlayer.get(p.id);
        if (!outcome) return p;
        const excommunications =
          outcome.excommunicated && outcome.tile_id !== null
            ? [...p.excommunications, { period, tile_id: outcome.tile_id }]
            : p.excommunications;
        return {
          ...p,
          faith: outcome.faith_after,
          report_victory_points: p.report_victory_points + outcome.victory_points.total,
          excommunications,
        };
      });
      game = {
        ...game,
        reports: game.reports.map((r) => (r.period === period ? { ...r, status: "resolved" } : r)),
      };
      reports[period] = { ...reports[period], status: "resolved", outcomes, resolved_at: event.at };
      break;
    }
    default:
      // game_created is always seq 1, read with the game; any other type is a newer
      // service's: this SDK does not guess what it changes.
      return null;
  }
  for (const period of PERIODS) reports[period] = withDecisions(reports[period], game);
  return { game, reports, version: event.seq };
}

function withPlayers(game: Game, change: (player: Game["players"][number]) => Game["players"][number]): Game {
  return { ...game, players: game.players.map(change) };
}

/** A report's decisions as the service lists them: every player in turn order, eligible
 * by their faith (by their faith before the report, once it is resolved), with their choice. */
function withDecisions(report: Report, game: Game): Report {
  const choices = new Map(report.decisions.map((d) => [d.player_id, d.choice]));
  const before = new Map((report.outcomes ?? []).map((o) => [o.player_id, o.faith_before]));
  const faith = new Map(game.players.map((p) => [p.id, p.faith]));
  const decisions = game.turn_order.map((player_id) => ({
    player_id,
    eligible: (before.get(player_id) ?? faith.get(player_id) ?? 0) >= report.threshold,
    choice: choices.get(player_id) ?? null,
  }));
  const same =
    decisions.length === report.decisions.length &&
    decisions.every((d, i) => {
      const old = report.decisions[i]!;
      return old.player_id === d.player_id && old.eligible === d.eligible && old.choice === d.choice;
    });
  return same ? report : { ...report, decisions };
}

/**
 * A game's state, current with its events. `ready` resolves with the first snapshot;
 * `subscribe(fn)` calls `fn` with each new snapshot (at once with the current one, if
 * any); `close()` stops following. `done` rejects when following cannot go on (401, 403,
 * 404), as `follow()`'s does.
 */
export class GameState {
  readonly gameId: string;
  /** How many times the state was read again because an event could not be folded in. */
  rereads = 0;
  private snapshot: GameSnapshot | undefined;
  private readonly listeners = new Set<StateListener>();
  private follower: Follower | undefined;
  private closed = false;
  private readonly client: VaticanReportClient;
  private readonly options: GameStateOptions;
  readonly ready: Promise<GameSnapshot>;
  readonly done: Promise<void>;

  constructor(client: VaticanReportClient, gameId: string, options: GameStateOptions = {}) {
    this.client = client;
    this.gameId = gameId;
    this.options = options;
    this.ready = this.read().then((snapshot) => {
      this.publish(snapshot, { kind: "read" });
      return snapshot;
    });
    this.done = this.ready.then(() => this.follow());
    // Handled here so an unobserved state cannot crash the process; awaiting still sees it.
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
  }

  /** The latest snapshot (undefined until the first read has answered). */
  get current(): GameSnapshot | undefined {
    return this.snapshot;
  }

  /** `stream` or `poll` once following, as `follow()` says. */
  get mode(): "stream" | "poll" | undefined {
    return this.follower?.mode;
  }

  subscribe(listener: StateListener): () => void {
    this.listeners.add(listener);
    if (this.snapshot) listener(this.snapshot, { kind: "read" });
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.follower?.close();
  }

  private async follow(): Promise<void> {
    if (this.closed) return;
    const { signal, ...rest } = this.options;
    this.follower = this.client.follow(this.gameId, {
      ...rest,
      ...(signal ? { signal } : {}),
      after: this.snapshot!.version,
      onEvent: (event) => this.receive(event),
    });
    if (this.closed) this.follower.close();
    await this.follower.done;
  }

  private async receive(event: AnyEvent): Promise<void> {
    const snapshot = this.snapshot!;
    if (event.seq <= snapshot.version) return; // already in a read that overtook it
    const reason =
      event.seq !== snapshot.version + 1 ? "gap" : KNOWN.has(event.type) ? "unexpected-event" : "unknown-event";
    const next = reason === "gap" ? null : applyEvent(snapshot, event);
    if (next) {
      this.publish(next, { kind: "event", event: event as GameEvent });
      return;
    }
    this.rereads++;
    this.publish(await this.read(), { kind: "reread", reason, event: event as GameEvent });
  }

  /** The game, then its reports: a report read after the game is at its version or
   * later, and folding the events in between into a report changes nothing twice (each
   * sets a value). Read again while they disagree, a few times, for a `ready` snapshot
   * that is one version throughout. */
  private async read(): Promise<GameSnapshot> {
    const options = { ...(this.options.token ? { token: this.options.token } : {}) };
    for (let attempt = 0; ; attempt++) {
      const game = (await this.client.getGame(this.gameId, options)).data;
      const replies = await Promise.all(PERIODS.map((p) => this.client.getReport(this.gameId, p, options)));
      const reports = { 1: replies[0]!.data, 2: replies[1]!.data, 3: replies[2]!.data };
      const agree = replies.every((r) => r.etag === `"${game.version}"`);
      if (agree || attempt >= 3) return { game, reports, version: game.version };
    }
  }

  private publish(snapshot: GameSnapshot, change: StateChange): void {
    this.snapshot = snapshot;
    for (const listener of [...this.listeners]) listener(snapshot, change);
  }
}

const KNOWN: ReadonlySet<string> = new Set<GameEvent["type"]>([
  "game_created",
  "faith_set",
  "leaders_set",
  "turn_order_set",
  "decision_set",
  "report_resolved",
]);
