// A game's state on the client, kept current by the game's events: read once (the game and
// its three reports; with `history`, its log too), then each event followed live is folded
// into it (fold.ts), as the service folds it into its own, and every subscriber is told.
// A UI binds to `current` and never reads the game again, after its own changes or
// others'. An event this SDK does not know (a newer service's) is never guessed at: the
// state is read again, once, and following goes on from there. When following cannot go
// on, `end` says why, typed: the game was deleted, this token's seat closed, or newer
// devices of the seat took this one's place.
import type { VaticanReportClient } from "./client.js";
import { SupersededError, type FollowOptions, type FollowStatus, type Follower } from "./follow.js";
import {
  EMPTY_HISTORY,
  KNOWN_EVENTS,
  PERIODS,
  applyEvent,
  applyToHistory,
  type AnyEvent,
  type GameHistory,
  type GameSnapshot,
} from "./fold.js";
import { isProblem } from "./problems.js";
import type { GameEvent } from "./types.js";

/** Why following ended: `deleted` (the game is gone: 404), `seat-closed` (this token is
 * refused, 401: its seat has a new token, none, or the host seat was recovered
 * elsewhere), `superseded` (more devices follow this seat than the service allows one
 * seat, and newer ones took this one's place: a `SupersededError`), `closed` (`close()`
 * was called), `failed` (anything else: a 403, a subscriber that threw; `error` has it). */
export type StateEnd =
  | { reason: "deleted"; error: unknown }
  | { reason: "seat-closed"; error: unknown }
  | { reason: "superseded"; error: unknown }
  | { reason: "closed" }
  | { reason: "failed"; error: unknown };

/** Why the state changed: its first read, an event folded in, a read again, or the end. */
export type StateChange =
  | { kind: "read" }
  | { kind: "event"; event: GameEvent }
  | { kind: "reread"; reason: "unknown-event" | "unexpected-event" | "gap"; event: GameEvent }
  | { kind: "ended"; end: StateEnd };

export type StateListener = (snapshot: GameSnapshot, change: StateChange) => void;

export interface GameStateOptions
  extends Pick<
    FollowOptions,
    "mode" | "wait" | "idleTimeoutMs" | "minPollIntervalMs" | "token" | "signal" | "onError" | "onStatus"
  > {
  /** Also keep what an undo and a redo would take (`snapshot.history`), from the game's
   * log, read once from its first event (at most `MAX_EVENTS_PER_GAME` of them). */
  history?: boolean;
}

/** The end a failure to read or follow means. */
export function endOf(error: unknown): StateEnd {
  if (isProblem(error, "not-found")) return { reason: "deleted", error };
  if (isProblem(error, "unauthorized")) return { reason: "seat-closed", error };
  if (error instanceof SupersededError) return { reason: "superseded", error };
  return { reason: "failed", error };
}

/**
 * A game's state, current with its events. `ready` resolves with the first snapshot;
 * `subscribe(fn)` calls `fn` with each new snapshot (at once with the current one, if
 * any); `close()` stops following. `end` resolves with why following stopped (and
 * subscribers are told, `kind: "ended"`); `done` rejects when following cannot go on
 * (401, 403, 404, a `SupersededError`), as `follow()`'s does.
 */
export class GameState {
  readonly gameId: string;
  /** How many times the state was read again because an event could not be folded in. */
  rereads = 0;
  private snapshot: GameSnapshot | undefined;
  private finished: StateEnd | undefined;
  private readonly listeners = new Set<StateListener>();
  private follower: Follower | undefined;
  private closed = false;
  private readonly client: VaticanReportClient;
  private readonly options: GameStateOptions;
  readonly ready: Promise<GameSnapshot>;
  readonly done: Promise<void>;
  readonly end: Promise<StateEnd>;

  constructor(client: VaticanReportClient, gameId: string, options: GameStateOptions = {}) {
    this.client = client;
    this.gameId = gameId;
    this.options = options;
    this.ready = this.read().then((snapshot) => {
      this.publish(snapshot, { kind: "read" });
      return snapshot;
    });
    this.done = this.ready.then(() => this.follow());
    this.end = this.done.then(
      () => this.finish({ reason: "closed" }),
      (error: unknown) => this.finish(this.closed ? { reason: "closed" } : endOf(error)),
    );
    // Handled here so an unobserved state cannot crash the process; awaiting still sees it.
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
  }

  /** The latest snapshot (undefined until the first read has answered). */
  get current(): GameSnapshot | undefined {
    return this.snapshot;
  }

  /** Why following ended; undefined while it goes on. */
  get ended(): StateEnd | undefined {
    return this.finished;
  }

  /** `stream` or `poll` once following, as `follow()` says. */
  get mode(): "stream" | "poll" | undefined {
    return this.follower?.mode;
  }

  /** How following stands, as `follow()` says (`connecting` while the game is first read;
   * `failed` when that read failed, `closed` if closed before it answered). */
  get status(): FollowStatus {
    if (this.follower) return this.follower.status;
    if (this.finished) return this.finished.reason === "closed" ? "closed" : "failed";
    return "connecting";
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

  private finish(end: StateEnd): StateEnd {
    this.finished = end;
    if (this.snapshot) this.publish(this.snapshot, { kind: "ended", end });
    return end;
  }

  private async follow(): Promise<void> {
    if (this.closed) return;
    const { signal, history: _history, ...rest } = this.options;
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
      event.seq !== snapshot.version + 1 ? "gap" : KNOWN_EVENTS.has(event.type) ? "unexpected-event" : "unknown-event";
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
      if (agree || attempt >= 3) {
        if (!this.options.history) return { game, reports, version: game.version };
        return { game, reports, version: game.version, history: await this.readHistory(game.version) };
      }
    }
  }

  /** What undo and redo would take at `version`, from the log's first event on. */
  private async readHistory(version: number): Promise<GameHistory> {
    const options = { ...(this.options.token ? { token: this.options.token } : {}) };
    let history: GameHistory = EMPTY_HISTORY;
    for (let after = 0; after < version; ) {
      const page = (await this.client.listGameEvents(this.gameId, { after, limit: 1000 }, options)).data;
      if (page.events.length === 0) break;
      for (const event of page.events) {
        if (event.seq > version) return history;
        const next = applyToHistory(history, event);
        if (!next) throw new Error(`the log of game ${this.gameId} undoes a change it does not hold (seq ${event.seq})`);
        history = next;
      }
      after = page.last_seq;
    }
    return history;
  }

  private publish(snapshot: GameSnapshot, change: StateChange): void {
    this.snapshot = snapshot;
    for (const listener of [...this.listeners]) listener(snapshot, change);
  }
}
