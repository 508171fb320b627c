// The table companion: routes on the URL fragment (which never reaches a server, so an
// invite's token travels there), stores tokens, and starts the screen the route names.
import { tokens } from "./api.js";
import { errorBox, header } from "./widgets.js";
import { CreateScreen } from "./create.js";
import { h, replace } from "./dom.js";
import { lang, setLang, t } from "./i18n.js";
import { HostScreen } from "./host.js";
import { PlayerScreen } from "./player.js";
import { RecoverScreen } from "./recover.js";

interface Screen {
  start(): Promise<void>;
  stop(): void;
}

const root = document.getElementById("app")!;
let current: Screen | null = null;

function go(fragment: string): void {
  location.hash = fragment;
}

/** Stores a token found in the fragment and drops it from the address bar and history. */
function keepToken(parts: string[], tokenIndex: number, save: (token: string) => void): boolean {
  const token = parts[tokenIndex];
  if (!token) return false;
  save(decodeURIComponent(token));
  const clean = `#/${parts.slice(0, tokenIndex).join("/")}`;
  history.replaceState(null, "", `${location.pathname}${location.search}${clean}`);
  return true;
}

async function route(): Promise<void> {
  current?.stop();
  current = null;
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const [kind, rawGame, rawPlayer] = parts;
  const gameId = rawGame ? decodeURIComponent(rawGame) : "";
  let screen: Screen;
  if (kind === "host" && gameId) {
    keepToken(parts, 2, (token) => tokens.setHost(gameId, token));
    const token = tokens.host(gameId);
    if (!token) return fail(new Error(t("unknown_link")));
    screen = new HostScreen(root, gameId, token);
  } else if (kind === "play" && gameId && rawPlayer) {
    const playerId = decodeURIComponent(rawPlayer);
    keepToken(parts, 3, (token) => tokens.setPlayer(gameId, playerId, token));
    const token = tokens.player(gameId, playerId);
    if (!token) return fail(new Error(t("unknown_link")));
    screen = new PlayerScreen(root, gameId, playerId, token);
  } else if (kind === "recover") {
    screen = new RecoverScreen(root, gameId, (id) => go(`/host/${encodeURIComponent(id)}`));
  } else {
    screen = new CreateScreen(root, (id) => go(`/host/${encodeURIComponent(id)}`));
  }
  current = screen;
  try {
    await screen.start();
  } catch (error) {
    if (current === screen) fail(error);
  }
}

function fail(error: unknown): void {
  replace(
    root,
    header("", null, () => void route()),
    h(
      "main",
      { id: "main", tabindex: "-1" },
      errorBox(error),
      h("p", {}, h("button", { type: "button", id: "retry", onclick: () => void route() }, t("retry"))),
    ),
  );
}

setLang(lang);
window.addEventListener("hashchange", () => void route());
void route();
