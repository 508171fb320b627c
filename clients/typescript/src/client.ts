import { follow, type FollowOptions, type Follower } from "./follow.js";
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

export type ResolveOptions = CreateOptions & ChangeOptions;

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

  /** The same service with another token (e.g. the host token `createGame` answered). */
  withToken(token: string): VaticanReportClient {
    return new VaticanReportClient({ ...this.transport.options, token });
  }

  /** The last ETag this client saw for a game (`"7"`), if any. */
  etag(gameId: string): string | undefined {
    return this.transport.etag(gameId);
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
        if (reply.etag) this.transport.setEtag(reply.data.game.id, reply.etag);
        return reply;
      });
  }

  getGame<O extends ReadOptions>(gameId: string, options?: O): Promise<Conditional<Answer<"getGame">, O>> {
    return this.read(gameId, game(gameId), undefined, options) as never;
  }

  setFaith(gameId: string, body: Body<"setFaith">, options: ChangeOptions = {}): Promise<Reply<Answer<"setFaith">>> {
    return this.change(gameId, "PUT", `${game(gameId)}/faith`, body, options);
  }

  setPlayerFaith(
    gameId: string,
    playerId: string,
    body: Body<"setPlayerFaith">,
    options: ChangeOptions = {},
  ): Promise<Reply<Answer<"setPlayerFaith">>> {
    return this.change(gameId, "PUT", `${game(gameId)}/players/${enc(playerId)}/faith`, body, options);
  }

  setPlayerLeaders(
    gameId: string,
    playerId: string,
    body: Body<"setPlayerLeaders">,
    options: ChangeOptions = {},
  ): Promise<Reply<Answer<"setPlayerLeaders">>> {
    return this.change(gameId, "PUT", `${game(gameId)}/players/${enc(playerId)}/leaders`, body, options);
  }

  setTurnOrder(
    gameId: string,
    body: Body<"setTurnOrder">,
    options: ChangeOptions = {},
  ): Promise<Reply<Answer<"setTurnOrder">>> {
    return this.change(gameId, "PUT", `${game(gameId)}/turn-order`, body, options);
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
    options: ChangeOptions = {},
  ): Promise<Reply<Answer<"setReportDecision">>> {
    const path = `${game(gameId)}/reports/${period}/decisions/${enc(playerId)}`;
    return this.change(gameId, "PUT", path, body, options);
  }

  /** Resolves a report, with an Idempotency-Key so that it can be retried safely. */
  resolveReport(
    gameId: string,
    period: Period,
    body: Body<"resolveReport"> = {},
    options: ResolveOptions = {},
  ): Promise<Reply<Answer<"resolveReport">>> {
    const { idempotencyKey, ...rest } = options;
    return this.transport.send({
      method: "POST",
      path: `${game(gameId)}/reports/${period}/resolution`,
      body,
      gameId,
      change: true,
      idempotencyKey: idempotencyKey ?? true,
      ...rest,
    });
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

  private calculation<T>(name: string, body: unknown, options: CallOptions): Promise<Reply<T>> {
    return this.transport.send({ method: "POST", path: `/v1/calculations/${name}`, body, ...options });
  }

  private change<T>(
    gameId: string,
    method: "PUT" | "POST",
    path: string,
    body: unknown,
    options: ChangeOptions,
  ): Promise<Reply<T>> {
    return this.transport.send({ method, path, body, gameId, change: true, ...options });
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
