import { follow, type FollowOptions, type Follower } from "./follow.js";
import { isProblem } from "./problems.js";
import type { operations } from "./schema.js";
import { STALE_POLICY } from "./stale.js";
import { GameState, type GameStateOptions } from "./state.js";
import {
  Transport,
  type CallOptions,
  type ChangeOptions,
  type ReadOptions,
  type Reply,
  type TransportOptions,
  type Unchanged,
} from "./transport.js";
import type { Answer, Body, Period, Query } from "./types.js";

export type ClientOptions = TransportOptions;

export interface CreateOptions extends CallOptions {
  /** The Idempotency-Key of this operation; a fresh random one by default. Keep it to
   * retry the same operation later (e.g. after a restart); never reuse it for another. */
  idempotencyKey?: string;
}

export interface StaleOptions {
  /** Overrides the client's `retryStale` for this call. */
  retryStale?: boolean;
}

export type ChangeCallOptions = ChangeOptions & StaleOptions;
export type ResolveOptions = CreateOptions & ChangeCallOptions;

type Conditional<T, O> = O extends { ifNoneMatch: string | true } ? Reply<T> | Unchanged : Reply<T>;

const enc = encodeURIComponent;
const game = (gameId: string) => `/v1/games/${enc(gameId)}`;

/**
 * A client of the Vatican Report rules service. One instance holds one token (host or
 * player; none for the reference data and calculations) and remembers the ETag of each
 * game it has seen, which it sends as `If-Match` with its next change to that game.
 */
export class VaticanReportClient {
  readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** The same service with another token (e.g. the host token `createGame` answered),
   * sharing this client's known versions. */
  withToken(token: string): VaticanReportClient {
    return new VaticanReportClient({ ...this.transport.options, token, versions: this.transport.versions });
  }

  /** The ETag of the latest version of a game this client knows (`"7"`), if any. */
  etag(gameId: string): string | undefined {
    return this.transport.etag(gameId);
  }

  /** The latest version of a game this client knows, if any. */
  version(gameId: string): number | undefined {
    return this.transport.versions.get(gameId);
  }

  // Reference data

  getFaithTrack(options: CallOptions = {}): Promise<Reply<Answer<"getFaithTrack">>> {
    return this.transport.send({ method: "GET", path: "/v1/faith-track", ...options });
  }

  listExcommunicationTiles(
    query: Query<"listExcommunicationTiles"> = {},
    options: CallOptions = {},
  ): Promise<Reply<Answer<"listExcommunicationTiles">>> {
    return this.transport.send({ method: "GET", path: "/v1/excommunication-tiles", query, ...options });
  }

  getExcommunicationTile(
    tileId: string,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"getExcommunicationTile">>> {
    return this.transport.send({
      method: "GET",
      path: `/v1/excommunication-tiles/${enc(tileId)}`,
      ...options,
    });
  }

  drawTiles(body: Body<"drawTiles"> = {}, options: CallOptions = {}): Promise<Reply<Answer<"drawTiles">>> {
    return this.transport.send({ method: "POST", path: "/v1/tile-draws", body, ...options });
  }

  // Stateless calculations

  calculateVaticanReport(
    body: Body<"calculateVaticanReport">,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"calculateVaticanReport">>> {
    return this.calculation("vatican-report", body, options);
  }

  calculateGains(body: Body<"calculateGains">, options: CallOptions = {}): Promise<Reply<Answer<"calculateGains">>> {
    return this.calculation("gains", body, options);
  }

  calculateActionValue(
    body: Body<"calculateActionValue">,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"calculateActionValue">>> {
    return this.calculation("action-value", body, options);
  }

  calculatePlacementOrder(
    body: Body<"calculatePlacementOrder">,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"calculatePlacementOrder">>> {
    return this.calculation("placement-order", body, options);
  }

  calculateFinalScores(
    body: Body<"calculateFinalScores">,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"calculateFinalScores">>> {
    return this.calculation("final-scores", body, options);
  }

  // Stored games

  /** Creates a game; the answer holds the host and player tokens, shown only this once. */
  createGame(body: Body<"createGame">, options: CreateOptions = {}): Promise<Reply<Answer<"createGame">>> {
    const { idempotencyKey, ...rest } = options;
    return this.transport
      .send<Answer<"createGame">>({
        method: "POST",
        path: "/v1/games",
        body,
        idempotencyKey: idempotencyKey ?? true,
        ...rest,
      })
      .then((reply) => {
        this.transport.seeVersion(reply.data.game.id, reply.data.game.version);
        return reply;
      });
  }

  getGame<O extends ReadOptions>(gameId: string, options?: O): Promise<Conditional<Answer<"getGame">, O>> {
    return this.read(gameId, game(gameId), undefined, options) as never;
  }

  setFaith(gameId: string, body: Body<"setFaith">, options: ChangeCallOptions = {}): Promise<Reply<Answer<"setFaith">>> {
    return this.change("setFaith", gameId, "PUT", `${game(gameId)}/faith`, body, options);
  }

  setPlayerFaith(
    gameId: string,
    playerId: string,
    body: Body<"setPlayerFaith">,
    options: ChangeCallOptions = {},
  ): Promise<Reply<Answer<"setPlayerFaith">>> {
    return this.change("setPlayerFaith", gameId, "PUT", `${game(gameId)}/players/${enc(playerId)}/faith`, body, options);
  }

  setPlayerLeaders(
    gameId: string,
    playerId: string,
    body: Body<"setPlayerLeaders">,
    options: ChangeCallOptions = {},
  ): Promise<Reply<Answer<"setPlayerLeaders">>> {
    return this.change("setPlayerLeaders", gameId, "PUT", `${game(gameId)}/players/${enc(playerId)}/leaders`, body, options);
  }

  setTurnOrder(
    gameId: string,
    body: Body<"setTurnOrder">,
    options: ChangeCallOptions = {},
  ): Promise<Reply<Answer<"setTurnOrder">>> {
    return this.change("setTurnOrder", gameId, "PUT", `${game(gameId)}/turn-order`, body, options);
  }

  getReport<O extends ReadOptions>(
    gameId: string,
    period: Period,
    options?: O,
  ): Promise<Conditional<Answer<"getReport">, O>> {
    return this.read(gameId, `${game(gameId)}/reports/${period}`, undefined, options) as never;
  }

  setReportDecision(
    gameId: string,
    period: Period,
    playerId: string,
    body: Body<"setReportDecision">,
    options: ChangeCallOptions = {},
  ): Promise<Reply<Answer<"setReportDecision">>> {
    const path = `${game(gameId)}/reports/${period}/decisions/${enc(playerId)}`;
    return this.change("setReportDecision", gameId, "PUT", path, body, options, period);
  }

  /** Resolves a report, with an Idempotency-Key so that it can be retried safely. */
  resolveReport(
    gameId: string,
    period: Period,
    body: Body<"resolveReport"> = {},
    options: ResolveOptions = {},
  ): Promise<Reply<Answer<"resolveReport">>> {
    const { idempotencyKey, ...rest } = options;
    // One key for the operation, the same if retryStale sends it again: it is one resolution.
    const key = idempotencyKey ?? this.transport.idempotencyKey();
    const path = `${game(gameId)}/reports/${period}/resolution`;
    return this.change("resolveReport", gameId, "POST", path, body, { ...rest, idempotencyKey: key }, period);
  }

  /** Adds `delta` (-15..15, not 0) to a player's faith as it is when stored (R-FT-3), so
   * that changes sent at once all count; with an Idempotency-Key, so a retry adds once. */
  changePlayerFaith(
    gameId: string,
    playerId: string,
    body: Body<"changePlayerFaith">,
    options: ResolveOptions = {},
  ): Promise<Reply<Answer<"changePlayerFaith">>> {
    const path = `${game(gameId)}/players/${enc(playerId)}/faith-changes`;
    return this.keyed("changePlayerFaith", gameId, "POST", path, body, options);
  }

  /** Moves a game that tracks rounds to its next round or report phase (R-RND-1). */
  advanceRound(gameId: string, options: ResolveOptions = {}): Promise<Reply<Answer<"advanceRound">>> {
    return this.keyed("advanceRound", gameId, "POST", `${game(gameId)}/round-advances`, undefined, options);
  }

  /** Reverts the last change of play still in effect (R-UNDO-1); the answer says what it
   * reverted and what the next undo and redo would take. */
  undoChange(gameId: string, options: ResolveOptions = {}): Promise<Reply<Answer<"undoChange">>> {
    return this.keyed("undoChange", gameId, "POST", `${game(gameId)}/undo`, undefined, options);
  }

  /** Applies the most recently undone change again, while no change of play came since (R-UNDO-2). */
  redoChange(gameId: string, options: ResolveOptions = {}): Promise<Reply<Answer<"redoChange">>> {
    return this.keyed("redoChange", gameId, "POST", `${game(gameId)}/redo`, undefined, options);
  }

  /** A new token for a seat (`host` or a player's id), answered once: the seat's old
   * token is refused from now on, and its streams end. */
  issueSeatToken(gameId: string, seat: string, options: ResolveOptions = {}): Promise<Reply<Answer<"issueSeatToken">>> {
    return this.keyed("issueSeatToken", gameId, "POST", `${game(gameId)}/seats/${enc(seat)}/token`, undefined, options);
  }

  /** Takes a player's seat back: its token is refused until the host issues a new one. */
  revokeSeatToken(gameId: string, seat: string, options: ChangeCallOptions = {}): Promise<Reply<void>> {
    return this.change("revokeSeatToken", gameId, "DELETE", `${game(gameId)}/seats/${enc(seat)}/token`, undefined, options);
  }

  /** Regains the host seat with the game's recovery code (no token needed): a new host
   * token and a new recovery code, answered once; the old token and code are refused. */
  recoverHostSeat(
    gameId: string,
    body: Body<"recoverHostSeat">,
    options: CreateOptions = {},
  ): Promise<Reply<Answer<"recoverHostSeat">>> {
    const { idempotencyKey, ...rest } = options;
    const path = `${game(gameId)}/recovery`;
    return this.transport.send({ method: "POST", path, body, gameId, idempotencyKey: idempotencyKey ?? true, ...rest });
  }

  /** Deletes the game for everyone, its events and keys with it; its streams end (404).
   * A retry after a lost answer may be a 404 `not-found`: the first try deleted it. */
  deleteGame(gameId: string, options: ChangeCallOptions = {}): Promise<Reply<void>> {
    return this.change("deleteGame", gameId, "DELETE", game(gameId), undefined, options);
  }

  calculatePlayerGains(
    gameId: string,
    playerId: string,
    body: Body<"calculatePlayerGains">,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"calculatePlayerGains">>> {
    const path = `${game(gameId)}/players/${enc(playerId)}/gain-adjustments`;
    return this.transport.send({ method: "POST", path, body, gameId, ...options });
  }

  calculateGameFinalScores(
    gameId: string,
    body: Body<"calculateGameFinalScores">,
    options: CallOptions = {},
  ): Promise<Reply<Answer<"calculateGameFinalScores">>> {
    return this.transport.send({ method: "POST", path: `${game(gameId)}/final-scores`, body, gameId, ...options });
  }

  listGameEvents<O extends ReadOptions>(
    gameId: string,
    query: Query<"listGameEvents"> & { wait?: number } = {},
    options?: O,
  ): Promise<Conditional<Answer<"listGameEvents">, O>> {
    return this.read(gameId, `${game(gameId)}/events`, query, options) as never;
  }

  /** Follows a game live: every event after `after`, in order, as it happens. */
  follow(gameId: string, options: FollowOptions): Follower {
    return follow(this.transport, gameId, options);
  }

  /** A game's state kept current by its events (read once, then followed live): bind a
   * UI to `state.current` and `state.subscribe(...)`. `close()` it when done. */
  gameState(gameId: string, options: GameStateOptions = {}): GameState {
    return new GameState(this, gameId, options);
  }

  private calculation<T>(name: string, body: unknown, options: CallOptions): Promise<Reply<T>> {
    return this.transport.send({ method: "POST", path: `/v1/calculations/${name}`, body, ...options });
  }

  /** A change sent with an Idempotency-Key (one for the operation, the same if
   * retryStale sends it again), so that a retry after a lost answer does it once. */
  private keyed<T>(
    operation: keyof operations,
    gameId: string,
    method: "POST",
    path: string,
    body: unknown,
    options: ResolveOptions,
  ): Promise<Reply<T>> {
    const { idempotencyKey, ...rest } = options;
    const key = idempotencyKey ?? this.transport.idempotencyKey();
    return this.change(operation, gameId, method, path, body, { ...rest, idempotencyKey: key });
  }

  private async change<T>(
    operation: keyof operations,
    gameId: string,
    method: "PUT" | "POST" | "DELETE",
    path: string,
    body: unknown,
    options: ChangeCallOptions & { idempotencyKey?: string },
    period?: Period,
  ): Promise<Reply<T>> {
    const { retryStale, ...rest } = options;
    const call = { method, path, body, gameId, change: true, ...rest };
    try {
      return await this.transport.send<T>(call);
    } catch (error) {
      // An If-Match the caller named is theirs to decide on; ours may be sent again.
      const mine = rest.ifMatch === undefined && this.transport.options.ifMatch !== "never";
      if (!(retryStale ?? this.transport.options.retryStale) || !mine) throw error;
      if (!isProblem(error, "version-mismatch")) throw error;
      const policy = STALE_POLICY[operation] ?? "never";
      if (policy === "never") throw error;
      const signal = rest.signal ? { signal: rest.signal } : {};
      const token = rest.token ? { token: rest.token } : {};
      if (policy === "if-resolved" && period !== undefined) {
        const report = await this.getReport(gameId, period, { ...signal, ...token });
        if (report.data.status !== "resolved") throw error;
      } else {
        await this.getGame(gameId, { ...signal, ...token });
      }
      return await this.transport.send<T>(call);
    }
  }

  private read<T>(
    gameId: string,
    path: string,
    query: Record<string, number | undefined> | undefined,
    options: ReadOptions = {},
  ): Promise<Reply<T> | Unchanged> {
    const { ifNoneMatch, ...rest } = options;
    const etag = ifNoneMatch === true ? this.transport.etag(gameId) : ifNoneMatch;
    return this.transport.send<T>({
      method: "GET",
      path,
      gameId,
      ...(query ? { query } : {}),
      ...(etag ? { ifNoneMatch: etag } : {}),
      ...rest,
    });
  }
}
