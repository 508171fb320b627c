// A Server-Sent Events parser (the WHATWG "event stream interpretation"), fed with text
// chunks as they arrive from a streamed fetch body.

export interface SseMessage {
  /** The last event id set in the stream (`id:`), carried over as the spec says. */
  id: string;
  /** `event:`, or `message` when the event named none. */
  event: string;
  data: string;
  /** `retry:`, the reconnection delay the server asks for, in milliseconds. */
  retry?: number;
}

export class SseParser {
  private readonly onComment: ((text: string) => void) | undefined;
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private lastId = "";
  private retry: number | undefined;
  private pendingCr = false;

  /** `onComment` hears each comment line's text, without its colon and the one space
   * after it (`: end superseded` is `end superseded`); the spec has clients skip them. */
  constructor(options: { onComment?: (text: string) => void } = {}) {
    this.onComment = options.onComment;
  }

  /** The id of the last event received, for `Last-Event-ID` on reconnection. */
  get lastEventId(): string {
    return this.lastId;
  }

  /** Feeds a chunk; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    let text = chunk;
    // A CR at the end of the previous chunk and an LF at the start of this one are one line end.
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== "\n" && ch !== "\r") continue;
      const line = this.buffer.slice(start, i);
      if (ch === "\r") {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[i + 1] === "\n") i++;
      }
      start = i + 1;
      this.line(line, out);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** The stream ended: an event not closed by a blank line is dropped, as the spec says. */
  end(): void {
    this.buffer = "";
    this.data = [];
    this.event = "";
    this.pendingCr = false;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === "") {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(":")) {
      // A comment: heartbeats, and why the service ends a stream (`: end <reason>`).
      this.onComment?.(line.startsWith(": ") ? line.slice(2) : line.slice(1));
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private dispatch(out: SseMessage[]): void {
    const retry = this.retry;
    this.retry = undefined;
    if (this.data.length === 0) {
      this.event = "";
      if (retry !== undefined) out.push({ id: this.lastId, event: "", data: "", retry });
      return;
    }
    const message: SseMessage = {
      id: this.lastId,
      event: this.event || "message",
      data: this.data.join("\n"),
    };
    if (retry !== undefined) message.retry = retry;
    out.push(message);
    this.data = [];
    this.event = "";
  }
}
