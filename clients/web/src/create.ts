// The start screen: a new game (players, leaders, tiles drawn by seed or picked to match the
// board), and the games this device hosts.
import { anonymous, pageUrl, tokens } from "./api.js";
import { errorBox, header, type Tile } from "./widgets.js";
import { field, h, replace } from "./dom.js";
import { pick, roman, t, type Key } from "./i18n.js";

const LEADERS = ["sisto_iv", "santa_rita", "martin_lutero"] as const;
type Leader = (typeof LEADERS)[number];

interface Draft {
  players: { name: string; leaders: Leader[] }[];
  mode: "seed" | "pick";
  seed: string;
  picks: Record<string, string>;
  playersEnterFaith: boolean;
  trackRounds: boolean;
  renaissance: boolean; // Houses of Renaissance: its tiles, and the fifth seat (R-PLY-1)
}

// The expansion that brings the fifth seat; offered only when the service has its tiles.
const RENAISSANCE = "hor";

export class CreateScreen {
  private tiles: Tile[] = [];
  private error: unknown = null;
  private busy = false;
  private readonly draft: Draft = {
    players: [
      { name: "", leaders: [] },
      { name: "", leaders: [] },
      { name: "", leaders: [] },
    ],
    mode: "seed",
    seed: "",
    picks: {},
    playersEnterFaith: false,
    trackRounds: false,
    renaissance: false,
  };

  constructor(
    private readonly root: HTMLElement,
    private readonly onCreated: (gameId: string) => void,
  ) {}

  async start(): Promise<void> {
    try {
      this.tiles = (await anonymous().listExcommunicationTiles()).data.tiles;
      for (const period of [1, 2, 3]) {
        this.draft.picks[String(period)] = this.tiles.find((tile) => tile.period === period)?.id ?? "";
      }
    } catch (error) {
      this.error = error;
    }
    this.render();
  }

  stop(): void {}

  private async create(event: Event): Promise<void> {
    event.preventDefault();
    const d = this.draft;
    const seed = d.seed.trim();
    this.busy = true;
    this.error = null;
    this.render();
    try {
      const answer = await anonymous().createGame({
        players: d.players.map((p) => ({ name: p.name.trim(), leaders: p.leaders })),
        players_enter_faith: d.playersEnterFaith,
        track_rounds: d.trackRounds,
        ...(d.renaissance ? { expansions: ["base", RENAISSANCE] } : {}),
        ...(d.mode === "pick"
          ? { tiles: { "1": d.picks["1"]!, "2": d.picks["2"]!, "3": d.picks["3"]! } }
          : seed
            ? { seed: Number(seed) }
            : {}),
      });
      const created = answer.data;
      tokens.setHost(created.game.id, created.host_token);
      tokens.setInvites(created.game.id, created.player_tokens);
      tokens.setRecoveryCode(created.game.id, created.recovery_code);
      this.onCreated(created.game.id);
    } catch (error) {
      this.error = error;
      this.busy = false;
      this.render();
    }
  }

  // The base game seats four; a fifth seat needs Houses of Renaissance (R-PLY-1).
  private maxPlayers(): number {
    return this.draft.renaissance ? 5 : 4;
  }

  // Shown only when the service has the expansion's tiles; it cannot be turned off while
  // a fifth player is seated (remove them first).
  private renaissanceChoice(): HTMLElement | null {
    const d = this.draft;
    if (!this.tiles.some((tile) => tile.expansion === RENAISSANCE)) return null;
    return h(
      "label",
      { class: "check" },
      h("input", {
        type: "checkbox",
        id: "renaissance",
        checked: d.renaissance,
        disabled: d.renaissance && d.players.length > 4,
        onchange: (event: Event) => {
          d.renaissance = (event.target as HTMLInputElement).checked;
          this.render();
        },
      }),
      ` ${t("renaissance")}`,
    );
  }

  private render(): void {
    const d = this.draft;
    const playerRows = d.players.map((player, i) => {
      const name = h("input", {
        type: "text",
        id: `player-${i}-name`,
        value: player.name,
        required: true,
        maxlength: 50,
        autocomplete: "off",
        oninput: (event: Event) => {
          player.name = (event.target as HTMLInputElement).value;
        },
      });
      return h(
        "fieldset",
        { class: "player-row" },
        h("legend", {}, t("player_n", { n: i + 1 })),
        field(t("name"), name),
        h(
          "div",
          { class: "leaders", role: "group", "aria-label": t("leaders") },
          LEADERS.map((leader) =>
            h(
              "label",
              { class: "check" },
              h("input", {
                type: "checkbox",
                id: `player-${i}-${leader}`,
                checked: player.leaders.includes(leader),
                onchange: (event: Event) => {
                  const on = (event.target as HTMLInputElement).checked;
                  player.leaders = on ? [...player.leaders, leader] : player.leaders.filter((l) => l !== leader);
                },
              }),
              ` ${t(`leader_${leader}` as Key)}`,
            ),
          ),
        ),
        d.players.length > 2
          ? h(
              "button",
              {
                type: "button",
                class: "link",
                id: `player-${i}-remove`,
                onclick: () => {
                  d.players.splice(i, 1);
                  this.render();
                },
              },
              t("remove_player", { name: player.name || t("player_n", { n: i + 1 }) }),
            )
          : null,
      );
    });
    const modeRadio = (mode: Draft["mode"], label: string) =>
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "radio",
          name: "tile-mode",
          id: `mode-${mode}`,
          value: mode,
          checked: d.mode === mode,
          onchange: () => {
            d.mode = mode;
            this.render();
          },
        }),
        ` ${label}`,
      );
    const tilePickers = [1, 2, 3].map((period) => {
      const choices = this.tiles.filter((tile) => tile.period === period);
      const chosen = choices.find((tile) => tile.id === d.picks[String(period)]);
      const select = h(
        "select",
        {
          id: `pick-${period}`,
          onchange: (event: Event) => {
            d.picks[String(period)] = (event.target as HTMLSelectElement).value;
            this.render();
          },
        },
        choices.map((tile) => h("option", { value: tile.id, selected: tile.id === chosen?.id }, `${tile.id} · ${pick(tile.text)}`)),
      );
      return h("div", { class: "pick" }, field(t("period", { p: roman(period) }), select), chosen ? h("p", { class: "tile-text small" }, pick(chosen.text)) : null);
    });
    const hosted = tokens.hostedGames();
    replace(
      this.root,
      header(t("subtitle"), null, () => this.render()),
      h(
        "main",
        { id: "main", tabindex: "-1", class: "create" },
        h("h1", {}, t("new_game")),
        h(
          "form",
          { onsubmit: (event: Event) => void this.create(event), class: "card" },
          h("h2", {}, t("players")),
          playerRows,
          d.players.length < this.maxPlayers()
            ? h(
                "button",
                {
                  type: "button",
                  id: "add-player",
                  onclick: () => {
                    d.players.push({ name: "", leaders: [] });
                    this.render();
                    document.getElementById(`player-${d.players.length - 1}-name`)?.focus();
                  },
                },
                t("add_player"),
              )
            : null,
          h(
            "fieldset",
            {},
            h("legend", {}, t("tiles")),
            modeRadio("seed", t("tiles_seed")),
            modeRadio("pick", t("tiles_pick")),
            d.mode === "seed"
              ? field(
                  t("seed"),
                  h("input", {
                    type: "number",
                    id: "seed",
                    min: 0,
                    max: 9007199254740991,
                    value: d.seed,
                    inputmode: "numeric",
                    oninput: (event: Event) => {
                      d.seed = (event.target as HTMLInputElement).value;
                    },
                  }),
                  t("seed_hint"),
                )
              : h("div", { class: "picks" }, tilePickers),
          ),
          this.renaissanceChoice(),
          h(
            "label",
            { class: "check" },
            h("input", {
              type: "checkbox",
              id: "players-enter-faith",
              checked: d.playersEnterFaith,
              onchange: (event: Event) => {
                d.playersEnterFaith = (event.target as HTMLInputElement).checked;
              },
            }),
            ` ${t("players_enter_faith")}`,
          ),
          h(
            "label",
            { class: "check" },
            h("input", {
              type: "checkbox",
              id: "track-rounds",
              checked: d.trackRounds,
              onchange: (event: Event) => {
                d.trackRounds = (event.target as HTMLInputElement).checked;
              },
            }),
            ` ${t("track_rounds")}`,
          ),
          this.error ? errorBox(this.error) : null,
          h("button", { type: "submit", class: "primary", id: "create", disabled: this.busy }, this.busy ? t("creating") : t("create")),
        ),
        hosted.length
          ? h(
              "section",
              { class: "card" },
              h("h2", {}, t("your_games")),
              h("ul", {}, hosted.map((id) => h("li", {}, h("a", { href: pageUrl(`/host/${id}`) }, t("game", { id: id.slice(0, 8) }))))),
            )
          : null,
        h("p", {}, h("a", { href: pageUrl("/recover"), id: "recover-link" }, t("recover_a_game"))),
      ),
    );
  }
}
