// A scripted `fetch` for the unit tests: each call takes the next answer of the script and
// is recorded; once the script is exhausted a call hangs until it is aborted, like a server
// with nothing more to say.
import type { FetchLike } from "../src/index.js";

export interface Recorded {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

export type Step = Response | Error | ((call: Recorded, init: RequestInit) => Response | Promise<Response>);

export class FakeFetch {
  readonly calls: Recorded[] = [];
  private readonly script: Step[];

  constructor(...script: Step[]) {
    this.script = script;
  }

  then(...steps: Step[]): this {
    this.script.push(...steps);
    return this;
  }

  readonly fetch: FetchLike = async (url, init) => {
    const call: Recorded = {
      url,
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? init.body : undefined,
    };
    this.calls.push(call);
    const step = this.script.shift();
    if (step === undefined) return hang(init.signal ?? undefined);
    if (step instanceof Error) throw step;
    if (step instanceof Response) return step;
    return step(call, init);
  };
}

function hang(signal: AbortSignal | undefined): Promise<Response> {
  return new Promise((_, reject) => {
    const fail = () => reject(new DOMException("aborted", "AbortError"));
    if (signal?.aborted) fail();
    signal?.addEventListener("abort", fail, { once: true });
  });
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function problem(
  status: number,
  slug: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ type: `/problems/${slug}`, title: slug, status, detail: `a ${slug}`, ...extra }),
    { status, headers: { "Content-Type": "application/problem+json", ...headers } },
  );
}

/** An SSE answer that sends the chunks, then ends (or stays open until aborted with `open`). */
/** A stream of `chunks`: closed at once, after `closeAfterMs` of real time, or left `open`
 * until `signal` aborts. */
export function eventStream(
  chunks: string[],
  { open = false, signal, closeAfterMs }: { open?: boolean; signal?: AbortSignal; closeAfterMs?: number } = {},
) {
  const bytes = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytes.encode(chunk));
      if (closeAfterMs !== undefined) setTimeout(() => controller.close(), closeAfterMs);
      else if (!open) controller.close();
      else
        signal?.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")), {
          once: true,
        });
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8" } });
}

export function sseEvent(seq: number, type = "faith_set"): string {
  const data = { seq, type, at: "2026-11-30T20:00:00Z", data: { seq } };
  return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A sleep that records what it was asked to wait, and waits for nothing. */
export function fakeSleep(): { waits: number[]; sleep: (ms: number, signal?: AbortSignal) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms, signal) => {
      waits.push(ms);
      if (signal?.aborted) throw signal.reason;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
