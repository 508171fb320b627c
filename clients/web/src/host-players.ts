// The host's list of players: Faith (one more, one less), leaders, the VP paid by reports,
// excommunications, and each player's invitation: a link and a QR code, and a new one when a
// phone is lost or handed to someone else (the old phone's seat closes).
import { inviteUrl } from "./api.js";
import { h } from "./dom.js";
import { t, type Key } from "./i18n.js";
import { qrSvg } from "./qr.js";
import { disc, errorBox, excommunicationList, type Game } from "./widgets.js";

export interface PlayersView {
  game: Game;
  gameId: string;
  invites: Record<string, string>;
  /** The invitations shown open (kept across redraws; a renewed one is opened). */
  open: Set<string>;
  busy: boolean;
  error: { playerId: string; error: unknown } | null;
  changeFaith(playerId: string, delta: number): void;
  reinvite(playerId: string): void;
}

export function playersSection(view: PlayersView): (HTMLElement | null)[] {
  const game = view.game;
  return [
    h("h2", { id: "players-h" }, t("players")),
    h(
      "ul",
      { class: "players" },
      game.turn_order.map((id) => {
        const player = game.players.find((p) => p.id === id)!;
        return h(
          "li",
          { class: "player", "data-player": id },
          h("h3", {}, disc(game, player), " ", player.name),
          h(
            "div",
            { class: "faith-row" },
            h(
              "button",
              { type: "button", id: `less-${id}`, "aria-label": t("less_faith", { name: player.name }), onclick: () => view.changeFaith(id, -1) },
              "−",
            ),
            h("span", { class: "faith-value", "data-faith": player.faith }, `${t("faith")} ${player.faith}`),
            h(
              "button",
              { type: "button", id: `more-${id}`, "aria-label": t("more_faith", { name: player.name }), onclick: () => view.changeFaith(id, 1) },
              "+",
            ),
          ),
          player.leaders.length
            ? h("p", { class: "small" }, `${t("leaders")}: `, player.leaders.map((l) => t(`leader_${l}` as Key)).join(", "))
            : null,
          h("p", { class: "small" }, t("report_vp", { vp: player.report_victory_points })),
          h("h4", {}, t("excommunications")),
          excommunicationList(game, player),
          invitation(view, id, player.name),
          view.error?.playerId === id ? errorBox(view.error.error, `invite-error-${id}`) : null,
        );
      }),
    ),
  ];
}

function invitation(view: PlayersView, id: string, name: string): HTMLElement {
  const token = view.invites[id];
  const invite = token ? inviteUrl(view.gameId, id, token) : null;
  const renew = h(
    "button",
    { type: "button", id: `reinvite-${id}`, disabled: view.busy, onclick: () => view.reinvite(id) },
    t("reinvite", { name }),
  );
  return h(
    "details",
    {
      class: "invite",
      open: view.open.has(id),
      "data-player": id,
      ontoggle: (event: Event) => {
        if ((event.currentTarget as HTMLDetailsElement).open) view.open.add(id);
        else view.open.delete(id);
      },
    },
    h("summary", {}, `${t("invite")}: ${name}`),
    invite
      ? [
          qrSvg(invite, `${t("invite")}: ${name}`),
          h("p", { class: "small muted" }, t("invite_hint")),
          h("input", { type: "text", readonly: true, value: invite, "aria-label": `${t("invite")}: ${name}`, class: "invite-link", "data-player": id }),
          h(
            "button",
            {
              type: "button",
              onclick: (event: Event) => {
                const button = event.currentTarget as HTMLButtonElement;
                void navigator.clipboard?.writeText(invite).then(() => {
                  button.textContent = t("copied");
                });
              },
            },
            t("copy_link"),
          ),
        ]
      : h("p", { class: "small muted" }, t("invite_not_here")),
    h("p", { class: "small muted" }, t("reinvite_hint", { name })),
    renew,
  );
}
