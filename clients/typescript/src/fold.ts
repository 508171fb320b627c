// Folding one event of a game's log into a snapshot of the game, as the service folds it
// into its own state: pure functions, shared parts left shared. Every event type the
// service logs today is folded; a type this SDK does not know returns null (read again).
import type { Game, GameEvent, Period, Report } from "./types.js";

export const PERIODS: readonly Period[] = [1, 2, 3];

/** A change of play: what an undo reverts and a redo applies again (R-UNDO-1). */
export type PlayEvent = Extract<
  GameEvent,
  {
    type:
      | "faith_set"
      | "faith_changed"
      | "leaders_set"
      | "turn_order_set"
      | "decision_set"
      | "report_resolved"
      | "round_advanced";
  }
>;

/** The game's changes of play as its log leaves them (kept with `history: true`). */
export interface GameHistory {
  /** The changes of play in effect, oldest first: the last is what an undo reverts. */
  readonly undoable: readonly PlayEvent[];
  /** The changes undone since the last change of play, the latest undone last: the
   * last is what a redo applies again. */
  readonly redoable: readonly PlayEvent[];
}

export const EMPTY_HISTORY: GameHistory = { undoable: [], redoable: [] };

/** The game and its reports, each as the service would answer for it at `version`. */
export interface GameSnapshot {
  /** As `GET /v1/games/{id}` answers (`game.version` is `version`). */
  readonly game: Game;
  /** As `GET /v1/games/{id}/reports/{period}` answers, by period. */
  readonly reports: Readonly<Record<Period, Report>>;
  /** The seq of the last event folded in: the game's version. */
  readonly version: number;
  /** What an undo and a redo would take, from the log; only on a state made with
   * `history: true` (it reads the whole log once), else absent. */
  readonly history?: GameHistory;
}

/** An event as received: its `type` may be one this SDK does not know. */
export type AnyEvent = GameEvent | { seq: number; type: string; at: string; data: unknown };

const PLAY_TYPES: ReadonlySet<string> = new Set<PlayEvent["type"]>([
  "faith_set",
  "faith_changed",
  "leaders_set",
  "turn_order_set",
  "decision_set",
  "report_resolved",
  "round_advanced",
]);

/** Every event type this SDK folds in (game_created is seq 1, always in the first read). */
export const KNOWN_EVENTS: ReadonlySet<string> = new Set<string>([
  "game_created",
  ...PLAY_TYPES,
  "change_undone",
  "change_redone",
  "seat_token_changed",
]);

export function isPlayEvent(event: AnyEvent): event is PlayEvent {
  return PLAY_TYPES.has(event.type);
}

/**
 * The snapshot after `event`, or null when this SDK cannot fold it in (an event type it
 * does not know, or data it does not expect): read the game again then. Pure: the
 * snapshot given is not changed, and the parts the event leaves alone are shared.
 */
export function applyEvent(snapshot: GameSnapshot, event: AnyEvent): GameSnapshot | null {
  try {
    const folded = fold(snapshot, event as GameEvent);
    if (!folded || snapshot.history === undefined) return folded;
    const history = applyToHistory(snapshot.history, event);
    return history ? { ...folded, history } : null;
  } catch {
    return null;
  }
}

/** The history after `event`, or null when the log and the history disagree (an undo of
 * a change that is not the last in effect): read again then. */
export function applyToHistory(history: GameHistory, event: AnyEvent): GameHistory | null {
  if (isPlayEvent(event)) return { undoable: [...history.undoable, event], redoable: [] };
  if (event.type !== "change_undone" && event.type !== "change_redone") return history;
  const { seq } = (event as Extract<GameEvent, { type: "change_undone" }>).data;
  const [from, to] = event.type === "change_undone" ? [history.undoable, history.redoable] : [history.redoable, history.undoable];
  const moved = from[from.length - 1];
  if (!moved || moved.seq !== seq) return null;
  const rest = from.slice(0, -1);
  const grown = [...to, moved];
  return event.type === "change_undone" ? { undoable: rest, redoable: grown } : { undoable: grown, redoable: rest };
}

function fold(snapshot: GameSnapshot, event: GameEvent): GameSnapshot | null {
  let game: Game = { ...snapshot.game, version: event.seq };
  const reports: Record<Period, Report> = { ...snapshot.reports };
  switch (event.type) {
    case "faith_set": {
      const faith = new Map(event.data.changes.map((c) => [c.player_id, c.to]));
      game = withPlayers(game, (p) => (faith.has(p.id) ? { ...p, faith: faith.get(p.id)! } : p));
      break;
    }
    case "faith_changed": {
      const { player_id, to } = event.data;
      if (!game.players.some((p) => p.id === player_id)) return null;
      game = withPlayers(game, (p) => (p.id === player_id ? { ...p, faith: to } : p));
      break;
    }
    case "leaders_set":
      game = withPlayers(game, (p) => (p.id === event.data.player_id ? { ...p, leaders: [...event.data.to] } : p));
      break;
    case "turn_order_set":
      game = { ...game, turn_order: [...event.data.to] };
      break;
    case "decision_set": {
      const { period, player_id, choice } = event.data;
      const report = reports[period];
      if (!report.decisions.some((d) => d.player_id === player_id)) return null;
      reports[period] = {
        ...report,
        decisions: report.decisions.map((d) => (d.player_id === player_id ? { ...d, choice } : d)),
      };
      break;
    }
    case "report_resolved": {
      const { period, outcomes } = event.data;
      const byPlayer = new Map(outcomes.map((o) => [o.player_id, o]));
      game = withPlayers(game, (p) => {
        const outcome = byPlayer.get(p.id);
        if (!outcome) return p;
        const excommunications =
          outcome.excommunicated && outcome.tile_id !== null
            ? [...p.excommunications, { period, tile_id: outcome.tile_id }]
            : p.excommunications;
        return {
          ...p,
          faith: outcome.faith_after,
          report_victory_points: p.report_victory_points + outcome.victory_points.total,
          excommunications,
        };
      });
      game = withStatus(game, period, "resolved");
      reports[period] = { ...reports[period], status: "resolved", outcomes, resolved_at: event.at };
      break;
    }
    case "round_advanced":
      game = { ...game, round: { ...event.data.to } };
      break;
    case "change_undone":
    case "change_redone": {
      // The event carries what the undo (or redo) leaves, as the documents show it.
      const { players, turn_order, report, round } = event.data;
      game = { ...game, players: players.map((p) => ({ ...p })), turn_order: [...turn_order], round: round ? { ...round } : null };
      if (report) {
        const period = report.period as Period;
        reports[period] = report;
        game = withStatus(game, period, report.status);
      }
      break;
    }
    case "seat_token_changed":
      // Who holds a seat is not part of the game: only its version moves.
      break;
    default:
      // game_created is always seq 1, read with the game; any other type is a newer
      // service's: this SDK does not guess what it changes.
      return null;
  }
  for (const period of PERIODS) reports[period] = withDecisions(reports[period], game);
  return { game, reports, version: event.seq };
}

function withPlayers(game: Game, change: (player: Game["players"][number]) => Game["players"][number]): Game {
  return { ...game, players: game.players.map(change) };
}

function withStatus(game: Game, period: Period, status: Report["status"]): Game {
  return { ...game, reports: game.reports.map((r) => (r.period === period && r.status !== status ? { ...r, status } : r)) };
}

/** A report's decisions as the service lists them: every player in turn order, eligible
 * by their faith (by their faith before the report, once it is resolved), with their choice. */
function withDecisions(report: Report, game: Game): Report {
  const choices = new Map(report.decisions.map((d) => [d.player_id, d.choice]));
  const before = new Map((report.outcomes ?? []).map((o) => [o.player_id, o.faith_before]));
  const faith = new Map(game.players.map((p) => [p.id, p.faith]));
  const decisions = game.turn_order.map((player_id) => ({
    player_id,
    eligible: (before.get(player_id) ?? faith.get(player_id) ?? 0) >= report.threshold,
    choice: choices.get(player_id) ?? null,
  }));
  const same =
    decisions.length === report.decisions.length &&
    decisions.every((d, i) => {
      const old = report.decisions[i]!;
      return old.player_id === d.player_id && old.eligible === d.eligible && old.choice === d.choice;
    });
  return same ? report : { ...report, decisions };
}
