// The version of each game a client knows: raised by every answer about the game (its
// ETag) and by every event `follow()` delivers (an event's seq is the version it made),
// never lowered by an answer that arrives late. A client and every handle made from it
// with `withToken` share one GameVersions, so what one device learns, its next change
// sends as `If-Match`.

/** `"7"` -> 7; anything that is not a strong ETag of a version -> undefined. */
export function versionOfEtag(etag: string | null | undefined): number | undefined {
  const match = /^"(\d+)"$/.exec(etag?.trim() ?? "");
  return match ? Number(match[1]) : undefined;
}

export function etagOfVersion(version: number): string {
  return `"${version}"`;
}

export class GameVersions {
  private readonly known = new Map<string, number>();

  /** The latest version known of a game. */
  get(gameId: string): number | undefined {
    return this.known.get(gameId);
  }

  /** The latest version known of a game, as the ETag to send in `If-Match`. */
  etag(gameId: string): string | undefined {
    const version = this.known.get(gameId);
    return version === undefined ? undefined : etagOfVersion(version);
  }

  /** A version seen in an answer or an event: kept if it is newer than the one known. */
  see(gameId: string, version: number | undefined): void {
    if (version === undefined || !Number.isSafeInteger(version) || version < 1) return;
    const current = this.known.get(gameId);
    if (current === undefined || version > current) this.known.set(gameId, version);
  }

  /** Sets the version known (e.g. one kept across restarts), older or not; null forgets it. */
  set(gameId: string, version: number | null): void {
    if (version === null) this.known.delete(gameId);
    else this.known.set(gameId, version);
  }
}
