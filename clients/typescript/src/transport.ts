// One HTTP exchange with the service: the bearer token, the ETag bookkeeping, the
// Idempotency-Key, retries that are safe, and problems turned into ProblemError.
import { randomIdempotencyKey } from "./keys.js";
import { ProblemError, asProblem, problemFromStatus } from "./problems.js";
import { GameVersions, versionOfEtag } from "./versions.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** When to try a call again, and how long to wait between tries. */
export interface RetryPolicy {
  /** Tries after the first one (0: never retry). */
  retries: number;
  /** First backoff when the answer gives no `Retry-After`; doubled at each try. */
  baseDelayMs: number;
  /** The longest backoff between two tries. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

export interface TransportOptions {
  /** The service's root, e.g. `https://rules.example.org` (paths start with `/v1`). */
  baseUrl: string;
  /** A host or player token, sent as `Authorization: Bearer <token>` (never in a URL). */
  token?: string | undefined;
  /** `fetch` to use; the global one by default. */
  fetch?: FetchLike | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /** Send `If-Match` with the latest version known of the game on every change (default), or never. */
  ifMatch?: "auto" | "never" | undefined;
  /** Makes Idempotency-Keys: by default a version-4 UUID from `crypto.randomUUID()`, or
   * from `crypto.getRandomValues()` where that is missing (never from Math.random). */
  idempotencyKey?: (() => string) | undefined;
  /** The versions known of each game, shared with other clients (`withToken` shares its own). */
  versions?: GameVersions | undefined;
  /** On a 412 `version-mismatch`, re-read and send the change once more where that is safe
   * for the operation (see the README's "Stale versions"); off by default. */
  retryStale?: boolean | undefined;
  /** Waits between tries (tests replace it). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** The answer of a call that succeeded. */
export interface Reply<T> {
  unchanged: false;
  status: number;
  data: T;
  /** The game's version as an ETag (`"4"`), on answers about a game. */
  etag: string | null;
  /** True when the service replayed the first answer to this Idempotency-Key. */
  replayed: boolean;
  requestId: string | null;
  headers: Headers;
}

/** A `304 Not Modified`: the ETag sent in `If-None-Match` is still current. */
export interface Unchanged {
  unchanged: true;
  status: 304;
  etag: string | null;
  requestId: string | null;
  headers: Headers;
}

/** A call that never got an answer (connection refused, reset, DNS...), after its retries. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

export interface Call {
  method: "GET" | "PUT" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | readonly string[] | null | undefined>;
  body?: unknown;
  /** The game the call is about: its answer's ETag is remembered, its changes send If-Match. */
  gameId?: string;
  /** Does this call change the game (so that it takes `If-Match`)? */
  change?: boolean;
  /** An explicit `If-Match`, or `false` to send none; by default the last ETag seen. */
  ifMatch?: string | false | undefined;
  /** `If-None-Match`: a 304 then comes back as `Unchanged`. */
  ifNoneMatch?: string | undefined;
  /** Send an Idempotency-Key: this one, or a fresh one when `true`. */
  idempotencyKey?: string | true | undefined;
  token?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface CallOptions {
  /** Abort the call (and its retries). */
  signal?: AbortSignal;
  /** A token for this call only. */
  token?: string;
}

export interface ChangeOptions extends CallOptions {
  /** `If-Match` to send; `false` sends none; by default the last ETag this client saw. */
  ifMatch?: string | false;
}

export interface ReadOptions extends CallOptions {
  /** An ETag you hold, or `true` for the last one this client saw: a 304 is `Unchanged`. */
  ifNoneMatch?: string | true;
}

export class Transport {
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly retry: RetryPolicy;
  readonly options: TransportOptions;
  private readonly fetchImpl: FetchLike;
  private readonly sleepImpl: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly newKey: () => string;
  /** The version known of each game, shared by every handle of one client. */
  readonly versions: GameVersions;

  constructor(options: TransportOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    const chosen: FetchLike | undefined =
      options.fetch ??
      (typeof globalThis.fetch === "function"
        ? (input, init) => globalThis.fetch(input, init)
        : undefined);
    if (!chosen) throw new Error("no fetch in this runtime: pass one as `fetch`");
    this.fetchImpl = chosen;
    this.sleepImpl = options.sleep ?? sleep;
    this.newKey = options.idempotencyKey ?? (() => randomIdempotencyKey());
    this.versions = options.versions ?? new GameVersions();
  }

  /** The ETag of the latest version known of a game, if any. */
  etag(gameId: string): string | undefined {
    return this.versions.etag(gameId);
  }

  /** Sets the version known of a game from an ETag (e.g. one kept across restarts), or
   * forgets it with null. */
  setEtag(gameId: string, etag: string | null): void {
    this.versions.set(gameId, etag === null ? null : (versionOfEtag(etag) ?? null));
  }

  /** A version seen (an answer's ETag, an event's seq): kept when newer than the known one. */
  seeVersion(gameId: string, version: number): void {
    this.versions.see(gameId, version);
  }

  /** A fresh Idempotency-Key. */
  idempotencyKey(): string {
    return this.newKey();
  }

  url(path: string, query?: Call["query"]): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) search.append(name, String(item));
      else search.append(name, String(value));
    }
    const text = search.toString();
    return `${this.baseUrl}${path}${text ? `?${text}` : ""}`;
  }

  headers(token: string | undefined, accept = "application/json"): Headers {
    const headers = new Headers({ Accept: accept });
    const bearer = token ?? this.token;
    if (bearer) headers.set("Authorization", `Bearer ${bearer}`);
    return headers;
  }

  /** A bare fetch with the token (for streams); no retry, no problem handling. */
  raw(url: string, init: RequestInit): Promise<Response> {
    return this.fetchImpl(url, init);
  }

  pause(ms: number, signal?: AbortSignal): Promise<void> {
    return this.sleepImpl(ms, signal);
  }

  backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  async send<T>(call: Call & { ifNoneMatch: string }): Promise<Reply<T> | Unchanged>;
  async send<T>(call: Call): Promise<Reply<T>>;
  async send<T>(call: Call): Promise<Reply<T> | Unchanged> {
    const headers = this.headers(call.token);
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers.set("Content-Type", "application/json");
    }
    if (call.change && call.ifMatch !== false) {
      const ifMatch =
        call.ifMatch ??
        (this.options.ifMatch === "never" || call.gameId === undefined
          ? undefined
          : this.versions.etag(call.gameId));
      if (ifMatch) headers.set("If-Match", ifMatch);
    }
    if (call.ifNoneMatch) headers.set("If-None-Match", call.ifNoneMatch);
    // One key for every try of this call: a retry is then the same operation, never a second one.
    if (call.idempotencyKey) {
      headers.set(
        "Idempotency-Key",
        call.idempotencyKey === true ? this.newKey() : call.idempotencyKey,
      );
    }
    const url = this.url(call.path, call.query);

    for (let attempt = 0; ; attempt++) {
      const init: RequestInit = { method: call.method, headers };
      if (body !== undefined) init.body = body;
      if (call.signal) init.signal = call.signal;
      let response: Response;
      try {
        response = await this.fetchImpl(url, init);
      } catch (error) {
        if (call.signal?.aborted || isAbort(error)) throw error;
        if (attempt >= this.retry.retries) {
          throw new NetworkError(`${call.method} ${call.path}: no answer`, { cause: error });
        }
        await this.sleepImpl(this.backoff(attempt), call.signal);
        continue;
      }

      const requestId = response.headers.get("X-Request-ID");
      const etag = response.headers.get("ETag");
      if (etag && call.gameId !== undefined) this.versions.see(call.gameId, versionOfEtag(etag));

      if (response.status === 304) {
        return { unchanged: true, status: 304, etag, requestId, headers: response.headers };
      }
      if (response.ok) {
        const data = (response.status === 204 ? undefined : await response.json()) as T;
        return {
          unchanged: false,
          status: response.status,
          data,
          etag,
          replayed: response.headers.get("Idempotent-Replayed") === "true",
          requestId,
          headers: response.headers,
        };
      }

      const retryAfterMs = parseRetryAfter(response.headers.get("Retry-After"));
      const problem = await readProblem(response);
      const error = new ProblemError(problem, { requestId, retryAfterMs });
      if (attempt < this.retry.retries && retryable(response.status, error.slug)) {
        const wait = retryAfterMs ?? this.backoff(attempt);
        if (wait <= this.retry.maxRetryAfterMs) {
          await this.sleepImpl(wait, call.signal);
          continue;
        }
      }
      throw error;
    }
  }
}

/**
 * Answers after which the same call may simply be sent again: the service did nothing
 * (429, 503, 502/504 from a proxy) or is still doing the first try (idempotency-in-flight).
 * Every operation of the API is safe to repeat: reads and calculations change nothing,
 * the `PUT`s are idempotent, a `DELETE` repeated is a 404 at worst, and every `POST` that
 * changes something carries an Idempotency-Key, the same on every try.
 */
function retryable(status: number, slug: string): boolean {
  return (
    status === 429 ||
    status === 503 ||
    status === 502 ||
    status === 504 ||
    (status === 409 && slug === "idempotency-in-flight")
  );
}

async function readProblem(response: Response) {
  const text = await response.text().catch(() => "");
  try {
    return asProblem(JSON.parse(text), response.status, response.statusText);
  } catch {
    return problemFromStatus(response.status, response.statusText);
  }
}

/** `Retry-After` as milliseconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function isAbort(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    ((error as { name?: unknown }).name === "AbortError" ||
      (error as { name?: unknown }).name === "TimeoutError")
  );
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
