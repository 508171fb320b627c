// The service, its tokens on this device, and the live connection to a game.
import { VaticanReportClient, isProblem, type GameState } from "@vatican-report/client";

/** The service's root: this page's origin, or `?api=<url>` for a service on another origin
 * (which must list this page's origin in its CORS_ORIGINS). */
export function baseUrl(): string {
  const api = new URLSearchParams(location.search).get("api");
  return api ? api.replace(/\/+$/, "") : location.origin;
}

export type Connection = "connecting" | "live" | "reconnecting" | "failed" | "closed";

export interface LiveGame {
  client: VaticanReportClient;
  /** The game's state, kept current by its events: screens render its snapshots and
   * never read the game again, after their own changes or others'. */
  state: GameState;
  close(): void;
}

/** Follows the game with `token` through the SDK's GameState (with what undo and redo
 * would take, from the log): `onConnection` runs whenever the connection's state changes.
 * The first snapshot is ready when this resolves. */
export async function openGame(
  gameId: string,
  token: string,
  onConnection: (state: Connection, error?: unknown) => void,
): Promise<LiveGame> {
  let state: Connection = "connecting";
  const set = (next: Connection, error?: unknown) => {
    if (next !== state) {
      state = next;
      onConnection(next, error);
    }
  };
  const client = new VaticanReportClient({ baseUrl: baseUrl(), token });
  // Live once a stream is open or a long-poll answered (the SDK's status); reconnecting
  // with the failure that made it so (its onError); closed or failed with its end.
  const game = client.gameState(gameId, {
    history: true,
    onStatus: (status) => {
      if (status === "live") set("live");
    },
    onError: (error) => set("reconnecting", error),
  });
  void game.end.then((end) => set(end.reason === "failed" ? "failed" : "closed", "error" in end ? end.error : undefined));
  await game.ready;
  return { client, state: game, close: () => game.close() };
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

function drop(key: string): void {
  try {
    localStorage.removeItem(key);
    sessionStorage.removeItem(key);
  } catch {
    // no storage: nothing kept
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
  setInvite(gameId: string, playerId: string, token: string): void {
    this.setInvites(gameId, { ...this.invites(gameId), [playerId]: token });
  },
  recoveryCode: (gameId: string) => load(`vr:recovery:${gameId}`),
  setRecoveryCode: (gameId: string, code: string) => store(`vr:recovery:${gameId}`, code),
  forgetRecoveryCode: (gameId: string) => drop(`vr:recovery:${gameId}`),
  /** Everything this device keeps about a game: its tokens, invites and recovery code. */
  forget(gameId: string): void {
    for (const key of [hostKey(gameId), `vr:invites:${gameId}`, `vr:recovery:${gameId}`]) drop(key);
  },
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

/** A change that names absolute values (a Faith, a choice) is sent once more after a 412:
 * it still means the same on the newer version. Nothing is read: the state hears the
 * change that overtook this one, and the SDK then knows the version to send. */
export async function withFreshRetry<T>(state: GameState, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (!isProblem(error, "version-mismatch")) throw error;
    const current = Number(error.problem.current_version ?? 0);
    await caughtUp(state, current);
    return change();
  }
}

/** Resolves once the state has folded in `version` (bounded: then the retry gets its 412). */
function caughtUp(state: GameState, version: number, ms = 10_000): Promise<void> {
  if ((state.current?.version ?? 0) >= version) return Promise.resolve();
  return new Promise((resolve) => {
    let stop = (): void => undefined;
    const done = (): void => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop = state.subscribe((snapshot, change) => {
      if (snapshot.version >= version || change.kind === "ended") done();
    });
  });
}
