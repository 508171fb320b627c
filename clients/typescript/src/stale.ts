// What the opt-in `retryStale` does with a change refused with 412 `version-mismatch`
// (another device changed the game since the version this client knew), per operation.
// An operation missing from the table is never sent again: a new one is safe by default.
import type { operations } from "./schema.js";

export type StalePolicy =
  /** The change means the same whatever else changed: re-read, send it once more. */
  | "reapply"
  /** Sent again only if the re-read shows the report resolved, for the service to
   * answer the real problem (409 `report-resolved`); otherwise the 412 stands. */
  | "if-resolved"
  /** An absolute value another device may have just replaced: the 412 stands. */
  | "never";

export const STALE_POLICY: Readonly<Partial<Record<keyof operations, StalePolicy>>> = {
  // A player's choice is theirs whatever else changed; a choice no longer allowed gets
  // its real answer (409 `report-resolved`, `not-eligible`) on the second try.
  setReportDecision: "reapply",
  // Resolving pays out on the faith and choices the host saw: never over newer ones.
  resolveReport: "if-resolved",
  // Absolute entries ("Anna's faith is 5") may overwrite a newer entry from another device.
  setFaith: "never",
  setPlayerFaith: "never",
  setPlayerLeaders: "never",
  setTurnOrder: "never",
  // A Faith change adds to whatever the faith is when it is stored: it means the same.
  changePlayerFaith: "reapply",
  // A seat's token is replaced or revoked whatever else changed in the game.
  issueSeatToken: "reapply",
  revokeSeatToken: "reapply",
  // These act on the game as the host saw it: after another device's change, undoing,
  // redoing or advancing would act on something else, and deleting is for good.
  undoChange: "never",
  redoChange: "never",
  advanceRound: "never",
  deleteGame: "never",
};
