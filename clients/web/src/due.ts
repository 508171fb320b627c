// When the coming Vatican Report is due, so that a phone may warn a player short of Faith that
// it will excommunicate them. Every period starts with Faith 0 below its threshold: a warning
// from the first minute says nothing true. The report is the next to resolve by
// construction (reports resolve in period order, R-REP-2); what "due" needs is to know that
// the table has reached it:
// - a game that tracks its rounds says so: due in the last round of the period (round 2, 4 or
//   6) and in its report phase, never before;
// - a game that does not: due once Faith has been entered for the period, i.e. a Faith entry
//   or a decision in effect since the previous report was resolved (since the creation, for
//   period I); what was undone does not count. Until then the phone only says what the
//   report will need.
import type { GameEvent } from "@vatican-report/client";

/** What the game's log says about the period under way. */
export interface PeriodSignals {
  /** Faith entered, or a decision made, since the previous report was resolved. */
  faithEntered: boolean;
}

export const NO_SIGNALS: PeriodSignals = { faithEntered: false };

/** The signals after one more event of the log (events are folded in seq order). */
export function afterEvent(signals: PeriodSignals, event: Pick<GameEvent, "type">): PeriodSignals {
  switch (event.type) {
    case "game_created":
    case "report_resolved":
      return NO_SIGNALS;
    case "faith_set":
    case "faith_changed":
    case "decision_set":
      return { faithEntered: true };
    default:
      return signals;
  }
}

/** The signals of a game's changes of play in effect, oldest first (the SDK's
 * `snapshot.history.undoable`): an undone Faith entry or resolution no longer counts. */
export function signalsOf(changes: readonly Pick<GameEvent, "type">[]): PeriodSignals {
  return changes.reduce(afterEvent, NO_SIGNALS);
}

/** Where a game that tracks its rounds is: round 1..6, in its play or its report phase. */
export interface RoundClock {
  number: number;
  phase: "play" | "report";
}

/** The round a game reports, or null for a game that does not track rounds (and for a
 * service that does not tell: anything but a well-formed round counts as none). */
export function roundOf(game: object): RoundClock | null {
  const round = (game as { round?: unknown }).round;
  if (typeof round !== "object" || round === null) return null;
  const { number, phase } = round as Record<string, unknown>;
  if (typeof number !== "number" || !Number.isInteger(number)) return null;
  if (phase !== "play" && phase !== "report") return null;
  return { number, phase };
}

/** `report`: the report is at hand (its phase has begun, or Faith was entered for it);
 * `last_round`: the last round before it is being played (Faith may still change);
 * null: not due yet. `reportRound` is the round the report ends (2, 4 or 6). */
export type Due = "report" | "last_round" | null;

export function reportDue(reportRound: number, signals: PeriodSignals, round: RoundClock | null): Due {
  if (round) {
    if (round.number < reportRound) return null;
    return round.number === reportRound && round.phase === "play" ? "last_round" : "report";
  }
  return signals.faithEntered ? "report" : null;
}
