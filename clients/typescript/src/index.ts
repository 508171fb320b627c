export { VaticanReportClient } from "./client.js";
export type { ClientOptions, CreateOptions, ResolveOptions } from "./client.js";
export { IdleTimeoutError, follow } from "./follow.js";
export type { FollowOptions, Follower } from "./follow.js";
export { ProblemError, isProblem, slugOf } from "./problems.js";
export type { ProblemDocument } from "./problems.js";
export { SseParser } from "./sse.js";
export type { SseMessage } from "./sse.js";
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
export type * from "./types.js";
export type { components, operations, paths } from "./schema.js";
