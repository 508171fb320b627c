// Following a game live: Server-Sent Events over a streamed fetch (the token stays in the
// Authorization header), resumed with Last-Event-ID after any break, with a fallback to
// long-polling `GET .../events?after=N&wait=25` where the stream is not served.
import { ProblemError, asProblem, problemFromStatus } from "./problems.js";
import { SseParser } from "./sse.js";
import { Transport, parseRetryAfter } from "./transport.js";
import type { EventList, GameEvent } from "./types.js";

export interface FollowOptions {
  /** The last seq already seen: only later events are delivered (default 0: all of them). */
  after?: number;
  /** Called once per event, in seq order, never twice for one seq; awaited before the next. */
  onEvent: (event: GameEvent) => void | Promise<void>;
  /** Told of each transient failure (a dropped stream, a 503) before following resumes. */
  onError?: (error: unknown) => void;
  /** Stops following when aborted (as `close()` does). */
  signal?: AbortSignal;
  /** `auto` (default): the stream, or long-polling where it is not served. */
  mode?: "auto" | "stream" | "poll";
  /** Seconds a long-poll may wait for an event (0..30, default 25). */
  wait?: number;
  /** The shortest time between two polls that brought nothing, and between the openings
   * of two streams when the service ended the first at its time bound (default 1000 ms). */
  minPollIntervalMs?: number;
  /** A token for this follow only. */
  token?: string;
  /** A stream silent this long (not even a heartbeat) is presumed dead and reopened
   * (default 60 000 ms); a long-poll gets `wait` plus this much to answer. */
  idleTimeoutMs?: number;
  /** Told each time `status` changes (for a connection indicator). */
  onStatus?: (status: FollowStatus) => void;
}

/** How following stands: `connecting` (nothing answered yet), `live` (a stream is open,
 * or the last long-poll was answered), `reconnecting` (after a failure, until an answer
 * comes again), `closed` (`close()` or the signal) or `failed` (`done` rejected). A stream
 * the service ends at its time bound, or to say that the token or the game is gone, is
 * taken up again at once (a time bound shorter than `minPollIntervalMs`, after the rest
 * of it), with no `reconnecting` between. */
export type FollowStatus = "connecting" | "live" | "reconnecting" | "closed" | "failed";

/** A connection closed by the client because nothing came through it for too long. */
export class IdleTimeoutError extends Error {
  override readonly name = "IdleTimeoutError";
}

/** A stream the service ended, with the reason its last line gave (`: end <reason>`:
 * `time-bound`, `shutdown`, `behind`, `token`, `gone`, `superseded`), or none when the
 * connection simply closed. Told to `onError` when following resumes after it. */
export class StreamEndedError extends Error {
  override readonly name: string = "StreamEndedError";
  readonly reason: string | undefined;

  constructor(reason: string | undefined) {
    super(reason ? `the event stream ended (${reason})` : "the event stream ended");
    this.reason = reason;
  }
}

/** Following stopped for good: this seat's stream (or long-poll) was ended `superseded`
 * twice in a row, so newer followers of the same seat keep taking its place. The seat is
 * followed on more devices than the service allows a seat (`MAX_STREAMS_PER_SEAT`, 4 by
 * default); reconnecting would only end another device's stream in turn. */
export class SupersededError extends StreamEndedError {
  override readonly name = "SupersededError";

  constructor() {
    super("superseded");
  }
}

export interface Follower {
  /** The seq of the last event delivered. */
  readonly lastSeq: number;
  /** `stream` or `poll`: how the events arrive now. */
  readonly mode: "stream" | "poll";
  /** How following stands now (`onStatus` is told each change). */
  readonly status: FollowStatus;
  /** Stop following; `done` then resolves. */
  close(): void;
  /** Resolves when closed; rejects on an error that following cannot get past (401, 403,
   * 404, a `SupersededError`, or `onEvent` throwing). */
  readonly done: Promise<void>;
}

const FALLBACK_STATUSES = new Set([404, 405, 406, 501]);

export function follow(transport: Transport, gameId: string, options: FollowOptions): Follower {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });

  const path = `/v1/games/${encodeURIComponent(gameId)}/events`;
  const signal = controller.signal;
  const state = {
    lastSeq: options.after ?? 0,
    // Where answers cannot be read as they arrive (React Native's fetch, built on
    // XMLHttpRequest, resolves only once the whole body is in: a stream's never is),
    // asking for the stream would wait forever: long-poll from the start.
    mode: (options.mode === "poll" || (options.mode !== "stream" && !canStream()) ? "poll" : "stream") as
      | "stream"
      | "poll",
  };
  let failures = 0;
  // How many times in a row the service ended this follower `superseded` (a stream or a
  // long-poll); any other end it gives starts the count again.
  let supersededInARow = 0;
  const idleMs = options.idleTimeoutMs ?? 60_000;
  const wait = options.wait ?? 25;
  const minIntervalMs = options.minPollIntervalMs ?? 1000;
  /** Waits what is left of the shortest interval since `started`: a server that ends every
   * poll or stream at once (a proxy that does not wait, a time bound set far too short)
   * must not be asked again in a loop. */
  const spaceOut = async (started: number): Promise<void> => {
    const rest = minIntervalMs - (Date.now() - started);
    if (rest > 0) await transport.pause(rest, signal);
  };
  let reconnectMs: number | undefined;
  let status: FollowStatus = "connecting";
  const setStatus = (next: FollowStatus): void => {
    if (next === status) return;
    status = next;
    options.onStatus?.(next);
  };

  const deliver = async (event: GameEvent): Promise<void> => {
    // Nothing after close(), and nothing twice: a resumed stream may replay what we saw.
    if (signal.aborted || event.seq <= state.lastSeq) return;
    // Known before the handler runs: a change it makes is sent with this version.
    transport.seeVersion(gameId, event.seq);
    await options.onEvent(event);
    state.lastSeq = event.seq;
  };

  const transient = async (error: unknown, retryAfterMs?: number | null): Promise<void> => {
    if (signal.aborted) return;
    setStatus("reconnecting");
    options.onError?.(error);
    const delay = retryAfterMs ?? reconnectMs ?? transport.backoff(Math.min(failures, 6));
    failures++;
    await transport.pause(delay, signal);
  };

  const fatalProblem = async (response: Response): Promise<ProblemError> => {
    const text = await response.text().catch(() => "");
    let problem;
    try {
      problem = asProblem(JSON.parse(text), response.status, response.statusText);
    } catch {
      problem = problemFromStatus(response.status, response.statusText);
    }
    return new ProblemError(problem, {
      requestId: response.headers.get("X-Request-ID"),
      retryAfterMs: parseRetryAfter(response.headers.get("Retry-After")),
    });
  };

  /** Counts a stream or a long-poll the service ended, by the reason it gave (none: it
   * did not end it). `superseded` once can be a dead connection of this seat's making room
   * for a live one; twice in a row, the seat has more live followers than its bound, and
   * reconnecting again would only end another device's follower: following stops. */
  const countSuperseded = (reason: string | null | undefined): void => {
    supersededInARow = reason === "superseded" ? supersededInARow + 1 : 0;
    if (supersededInARow >= 2) throw new SupersededError();
  };

  /** What to do once the service has ended a stream, by the reason it gave. */
  const streamEnded = async (reason: string | undefined, started: number): Promise<void> => {
    countSuperseded(reason);
    switch (reason) {
      case "time-bound": // its time bound: nothing is wrong, resume at once
        failures = 0;
        await spaceOut(started);
        return;
      case "token": // the seat's token was replaced or revoked: reconnecting hears the 401
      case "gone": // the game was deleted: reconnecting hears the 404
        failures = 0;
        return;
      default: // superseded once, shutdown, behind, or a connection closed without a word
        await transient(new StreamEndedError(reason));
    }
  };

  /** One connection to the stream: returns when it ends; false when it is not served. */
  const streamOnce = async (): Promise<boolean> => {
    const started = Date.now();
    const headers = transport.headers(options.token, "text/event-stream");
    if (state.lastSeq > 0) headers.set("Last-Event-ID", String(state.lastSeq));
    const line = watch(signal, idleMs);
    try {
      let response: Response;
      try {
        response = await transport.raw(transport.url(`${path}/stream`), { headers, signal: line.signal });
      } catch (error) {
        if (signal.aborted) throw error;
        await transient(line.reason(error));
        return true;
      }
      const type = response.headers.get("Content-Type") ?? "";
      if (response.ok && type.startsWith("text/event-stream") && response.body) {
        setStatus("live");
        await readStream(response.body, line, started);
        return true;
      }
      return await notAStream(response);
    } finally {
      line.dispose();
    }
  };

  const notAStream = async (response: Response): Promise<boolean> => {
    if (options.mode !== "stream" && (response.ok || FALLBACK_STATUSES.has(response.status))) {
      await response.body?.cancel().catch(() => undefined);
      return false;
    }
    const error = await fatalProblem(response);
    if (isTransientStatus(response.status)) {
      await transient(error, error.retryAfterMs);
      return true;
    }
    throw error;
  };

  const readStream = async (body: ReadableStream<Uint8Array>, line: Watch, started: number): Promise<void> => {
    let ended: string | undefined;
    const parser = new SseParser({
      onComment: (text) => {
        if (text.startsWith("end ")) ended = text.slice(4);
      },
    });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (signal.aborted) throw error;
          await transient(line.reason(error));
          return;
        }
        line.arm(); // bytes came, a heartbeat or an event: the connection is alive
        const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
        for (const message of parser.push(text)) {
          if (message.retry !== undefined) reconnectMs = message.retry;
          if (message.data === "") continue;
          const event = parseEvent(message.data, message.id);
          if (event) {
            await deliver(event);
            failures = 0;
          }
        }
        if (chunk.done) {
          parser.end();
          // The server closed the stream: resume where we are, at once or after a pause
          // by the reason it gave (none from a proxy's timeout).
          await streamEnded(ended, started);
          return;
        }
      }
    } finally {
      reader.releaseLock();
      await body.cancel().catch(() => undefined);
    }
  };

  /** One long-poll. */
  const pollOnce = async (): Promise<void> => {
    const started = Date.now();
    const headers = transport.headers(options.token);
    const url = transport.url(path, { after: state.lastSeq, wait });
    const line = watch(signal, wait * 1000 + idleMs);
    let page: EventList;
    let ended: string | null;
    try {
      const response = await transport.raw(url, { headers, signal: line.signal });
      if (!response.ok) {
        const error = await fatalProblem(response);
        if (isTransientStatus(response.status)) return await transient(error, error.retryAfterMs);
        throw error;
      }
      setStatus("live");
      // Why the service cut the wait short, in a stream's words (`superseded`, `shutdown`).
      ended = response.headers.get("Follow-Ended");
      page = (await response.json()) as EventList;
    } catch (error) {
      if (signal.aborted || error instanceof ProblemError) throw error;
      await transient(line.reason(error));
      return;
    } finally {
      line.dispose();
    }
    failures = 0;
    for (const event of page.events) await deliver(event);
    countSuperseded(ended);
    if (page.events.length === 0) await spaceOut(started);
  };

  const run = async (): Promise<void> => {
    let failed = false;
    try {
      while (!signal.aborted) {
        if (state.mode === "stream") {
          if (!(await streamOnce())) state.mode = "poll";
        } else {
          await pollOnce();
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      failed = true;
      throw error;
    } finally {
      options.signal?.removeEventListener("abort", onOuterAbort);
      controller.abort();
      setStatus(failed ? "failed" : "closed");
    }
  };

  const done = run();
  // Marked as handled so that a follower whose `done` nobody awaits cannot crash the
  // process with an unhandled rejection; awaiting `done` still sees the error.
  done.catch(() => undefined);
  return {
    get lastSeq() {
      return state.lastSeq;
    },
    get mode() {
      return state.mode;
    },
    get status() {
      return status;
    },
    close: () => controller.abort(),
    done,
  };
}

/** Can this runtime read a fetch answer's body as it arrives? */
export function canStream(): boolean {
  return typeof globalThis.ReadableStream === "function" && typeof globalThis.TextDecoder === "function";
}

function isTransientStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

function parseEvent(data: string, id: string): GameEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const event = value as Partial<GameEvent>;
  if (typeof event.seq !== "number") {
    const seq = Number(id);
    if (!Number.isInteger(seq) || seq <= 0) return null;
    event.seq = seq;
  }
  return event as GameEvent;
}

interface Watch {
  signal: AbortSignal;
  /** Restart the idle timer. */
  arm(): void;
  /** The error to report: the idle timeout when it is what cut the connection. */
  reason(error: unknown): unknown;
  dispose(): void;
}

/** One connection's signal: aborted with the follower's, or after `ms` of silence. */
function watch(outer: AbortSignal, ms: number): Watch {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new IdleTimeoutError(`nothing received for ${ms} ms`)), ms);
  };
  arm();
  return {
    signal: controller.signal,
    arm,
    reason: (error) => (controller.signal.reason instanceof IdleTimeoutError ? controller.signal.reason : error),
    dispose: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", onAbort);
    },
  };
}
