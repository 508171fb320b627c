export { VaticanReportClient } from "./client.js";
export type { ChangeCallOptions, ClientOptions, CreateOptions, ResolveOptions, StaleOptions } from "./client.js";
export { IdleTimeoutError, StreamEndedError, SupersededError, follow } from "./follow.js";
export type { FollowOptions, FollowStatus, Follower } from "./follow.js";
export { NoRandomSourceError, isUuidV4, randomIdempotencyKey, uuidV4FromBytes } from "./keys.js";
export { ProblemError, isProblem, slugOf } from "./problems.js";
export type { ProblemDocument, ProblemMembers, ProblemOf } from "./problems.js";
export { SseParser } from "./sse.js";
export type { SseMessage } from "./sse.js";
export { STALE_POLICY } from "./stale.js";
export type { StalePolicy } from "./stale.js";
export { EMPTY_HISTORY, KNOWN_EVENTS, applyEvent, applyToHistory, isPlayEvent } from "./fold.js";
export type { AnyEvent, GameHistory, GameSnapshot, PlayEvent } from "./fold.js";
export { GameState, endOf } from "./state.js";
export type { GameStateOptions, StateChange, StateEnd, StateListener } from "./state.js";
export { DEFAULT_RETRY, NetworkError, Transport, parseRetryAfter } from "./transport.js";
export type {
  CallOptions,
  ChangeOptions,
  FetchLike,
  ReadOptions,
  Reply,
  RetryPolicy,
  TransportOptions,
  Unchanged,
} from "./transport.js";
export { GameVersions, etagOfVersion, versionOfEtag } from "./versions.js";
export type * from "./types.js";
export type { components, operations, paths } from "./schema.js";
