// The service, its tokens on this device, and the live connection to a game.
import {
  VaticanReportClient,
  isProblem,
  type FetchLike,
  type GameEvent,
  type Schemas,
} from "@vatican-report/client";

/** The service's root: this page's origin, or `?api=<url>` for a service on another origin
 * (which must list this page's origin in its CORS_ORIGINS). */
export function baseUrl(): string {
  const api = new URLSearchParams(location.search).get("api");
  return api ? api.replace(/\/+$/, "") : location.origin;
}

export type Connection = "connecting" | "live" | "reconnecting" | "failed";

/** Both the live stream and a long-poll go through this fetch: an answer from the service
 * means we are live (a 404 for the stream too: the SDK then long-polls), a failure to connect
 * or a 429/5xx means we are reconnecting. (The SDK retries by itself.) */
function watchingFetch(onFollow: (ok: boolean) => void): FetchLike {
  return async (input, init) => {
    const following = /\/events\/stream(\?|$)|\/events\?.*\bwait=/.test(input);
    try {
      const response = await fetch(input, init);
      if (following) onFollow(response.status < 500 && response.status !== 429);
      return response;
    } catch (error) {
      if (following && !init.signal?.aborted) onFollow(false);
      throw error;
    }
  };
}

export interface LiveGame {
  client: VaticanReportClient;
  game: Schemas["GameRead"];
  close(): void;
}

/** Reads the game with `token`, then follows it from that version on: `onChange` runs on
 * each event, `onConnection` whenever the connection's state changes. With `history`, the
 * events before that version are handed to `onChange` first, from the first one. */
export async function openGame(
  gameId: string,
  token: string,
  onChange: (event: GameEvent) => void,
  onConnection: (state: Connection, error?: unknown) => void,
  { history = false }: { history?: boolean } = {},
): Promise<LiveGame> {
  let state: Connection = "connecting";
  const set = (next: Connection, error?: unknown) => {
    if (next !== state) {
      state = next;
      onConnection(next, error);
    }
  };
  const client = new VaticanReportClient({
    baseUrl: baseUrl(),
    token,
    fetch: watchingFetch((ok) => set(ok ? "live" : "reconnecting")),
  });
  const game = (await client.getGame(gameId)).data;
  const follower = client.follow(gameId, {
    after: history ? 0 : game.version,
    onEvent: (event) => onChange(event),
    onError: (error) => set("reconnecting", error),
  });
  follower.done.catch((error: unknown) => set("failed", error));
  return { client, game, close: () => follower.close() };
}

export function anonymous(): VaticanReportClient {
  return new VaticanReportClient({ baseUrl: baseUrl() });
}

// Tokens live in this browser's storage, never in a URL the page keeps or sends: an invite
// link carries its token in the fragment (#...), which browsers do not send to servers, and
// the page removes it from the address bar as soon as it has stored it.
const hostKey = (gameId: string) => `vr:host:${gameId}`;
const playerKey = (gameId: string, playerId: string) => `vr:player:${gameId}:${playerId}`;

function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    sessionStorage.setItem(key, value);
  }
}

function load(key: string): string | null {
  try {
    return localStorage.getItem(key) ?? sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

export const tokens = {
  host: (gameId: string) => load(hostKey(gameId)),
  setHost: (gameId: string, token: string) => store(hostKey(gameId), token),
  player: (gameId: string, playerId: string) => load(playerKey(gameId, playerId)),
  setPlayer: (gameId: string, playerId: string, token: string) => store(playerKey(gameId, playerId), token),
  invites(gameId: string): Record<string, string> {
    try {
      return JSON.parse(load(`vr:invites:${gameId}`) ?? "{}") as Record<string, string>;
    } catch {
      return {};
    }
  },
  setInvites: (gameId: string, byPlayer: Record<string, string>) =>
    store(`vr:invites:${gameId}`, JSON.stringify(byPlayer)),
  hostedGames(): string[] {
    const ids: string[] = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key?.startsWith("vr:host:")) ids.push(key.slice("vr:host:".length));
      }
    } catch {
      // no storage: nothing to list
    }
    return ids;
  },
};

/** The page address for a route, keeping `?api=` when there is one. */
export function pageUrl(fragment: string): string {
  return `${location.origin}${location.pathname}${location.search}#${fragment}`;
}

export function inviteUrl(gameId: string, playerId: string, token: string): string {
  return pageUrl(`/play/${encodeURIComponent(gameId)}/${encodeURIComponent(playerId)}/${encodeURIComponent(token)}`);
}

/** A change that names absolute values (a Faith, a choice) is retried once after a 412:
 * it still means the same on the newer version. `refresh` reads the game again first. */
export async function withFreshRetry<T>(change: () => Promise<T>, refresh: () => Promise<unknown>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (!isProblem(error, "version-mismatch")) throw error;
    await refresh();
    return change();
  }
}
