// Host recovery on another device: the game's id (from the recovery address the host screen
// shows) and its recovery code give this browser the host seat, with a new code to keep;
// the old host device's token is refused from then on, and its screen says its seat closed.
import { isProblem } from "@vatican-report/client";
import { anonymous, tokens } from "./api.js";
import { field, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { errorBox, header } from "./widgets.js";

export class RecoverScreen {
  private error: unknown = null;
  private busy = false;
  private gameId: string;
  private code = "";

  constructor(
    private readonly root: HTMLElement,
    gameId: string,
    private readonly onRecovered: (gameId: string) => void,
  ) {
    this.gameId = gameId;
  }

  async start(): Promise<void> {
    this.render();
  }

  stop(): void {}

  private async recover(event: Event): Promise<void> {
    event.preventDefault();
    this.busy = true;
    this.error = null;
    this.render();
    const gameId = this.gameId.trim();
    try {
      // No token: the code is the credential. Its Idempotency-Key lets a retry after a lost
      // answer get the new token and code again, instead of spending the code for nothing.
      const answer = await anonymous().recoverHostSeat(gameId, { recovery_code: this.code });
      tokens.setHost(gameId, answer.data.host_token);
      tokens.setRecoveryCode(gameId, answer.data.recovery_code);
      this.onRecovered(gameId);
    } catch (error) {
      this.error = isProblem(error, "unauthorized") ? new Error(t("recovery_refused")) : error;
      this.busy = false;
      this.render();
    }
  }

  private render(): void {
    const gameInput = h("input", {
      type: "text",
      id: "recover-game",
      value: this.gameId,
      required: true,
      autocomplete: "off",
      spellcheck: "false",
      oninput: (event: Event) => {
        this.gameId = (event.target as HTMLInputElement).value;
      },
    });
    const codeInput = h("input", {
      type: "text",
      id: "recover-code",
      value: this.code,
      required: true,
      autocomplete: "off",
      spellcheck: "false",
      autocapitalize: "characters",
      oninput: (event: Event) => {
        this.code = (event.target as HTMLInputElement).value;
      },
    });
    replace(
      this.root,
      header(t("subtitle"), null, () => this.render()),
      h(
        "main",
        { id: "main", tabindex: "-1", class: "create" },
        h("h1", {}, t("recover_title")),
        h(
          "form",
          { class: "card", onsubmit: (event: Event) => void this.recover(event) },
          h("p", {}, t("recover_intro")),
          field(t("recover_game"), gameInput),
          field(t("recover_code"), codeInput, t("recover_code_hint")),
          this.error ? errorBox(this.error) : null,
          h("button", { type: "submit", class: "primary", id: "recover", disabled: this.busy }, t("recover_submit")),
        ),
      ),
    );
  }
}
