"""Every query of the service. Repositories use ``self.session`` and never commit."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Table, delete, exists, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, make_transient_to_detached, selectinload

from app.persistence.models import (
    Event,
    Excommunication,
    Game,
    IdempotencyKey,
    Player,
    Report,
    ReportDecision,
    utcnow,
)
from app.persistence.views import (
    DecisionView,
    ExcommunicationView,
    GameView,
    PlayerView,
    ReportView,
)


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, game: Game) -> None:
        """Stage a new game with its players and reports (inserted at commit)."""
        self.session.add(game)

    def get(
        self, game_id: str, *, for_update: bool = False, with_reports: bool = True
    ) -> Game | None:
        """The game with its players (and their excommunications) and reports (and their
        decisions), in five SELECTs whatever the number of players; three without the
        reports (``with_reports=False``: touching ``game.reports`` then raises).

        ``for_update`` locks the game row until the transaction ends (PostgreSQL; SQLite
        has no row locks, a ``write=True`` transaction already holds the database's write
        lock) and refreshes objects already in the session.
        """
        statement = (
            select(Game)
            .where(Game.id == game_id)
            .options(selectinload(Game.players).selectinload(Player.excommunications))
        )
        if with_reports:
            statement = statement.options(selectinload(Game.reports).selectinload(Report.decisions))
        if for_update:
            statement = statement.with_for_update(of=Game).execution_options(populate_existing=True)
        return self.session.scalars(statement).one_or_none()

    def read(self, game_id: str) -> GameView | None:
        """A read-only snapshot of the game in three SELECTs of plain rows, whatever the
        number of players: the game, its players with their excommunications, its reports
        with their decisions."""
        game = self.session.execute(
            select(
                Game.id,
                Game.version,
                Game.seed,
                Game.expansions,
                Game.tile_ids,
                Game.players_enter_faith,
                Game.host_token_hash,
            ).where(Game.id == game_id)
        ).one_or_none()
        if game is None:
            return None
        player_rows = self.session.execute(
            select(
                Player.id,
                Player.name,
                Player.seat,
                Player.turn_position,
                Player.faith,
                Player.report_victory_points,
                Player.leaders,
                Player.token_hash,
                Excommunication.period,
                Excommunication.tile_id,
            )
            .outerjoin(
                Excommunication,
                (Excommunication.game_id == Player.game_id)
                & (Excommunication.player_id == Player.id),
            )
            .where(Player.game_id == game_id)
            .order_by(Player.seat, Excommunication.period)
        ).all()
        report_rows = self.session.execute(
            select(
                Report.period,
                Report.status,
                Report.outcomes,
                Report.resolved_at,
                ReportDecision.player_id,
                ReportDecision.choice,
            )
            .outerjoin(
                ReportDecision,
                (ReportDecision.game_id == Report.game_id)
                & (ReportDecision.period == Report.period),
            )
            .where(Report.game_id == game_id)
            .order_by(Report.period, ReportDecision.player_id)
        ).all()

        excommunications: dict[str, list[ExcommunicationView]] = {}
        players: dict[str, Any] = {}
        for row in player_rows:
            if row.id not in players:
                players[row.id] = row
                excommunications[row.id] = []
            if row.period is not None:
                excommunications[row.id].append(ExcommunicationView(row.period, row.tile_id))
        decisions: dict[int, list[DecisionView]] = {}
        reports: dict[int, Any] = {}
        for row in report_rows:
            if row.period not in reports:
                reports[row.period] = row
                decisions[row.period] = []
            if row.player_id is not None:
                decisions[row.period].append(DecisionView(row.player_id, row.choice))
        return GameView(
            id=game.id,
            version=game.version,
            seed=game.seed,
            expansions=game.expansions,
            tile_ids=game.tile_ids,
            players_enter_faith=game.players_enter_faith,
            host_token_hash=game.host_token_hash,
            players=tuple(
                PlayerView(
                    id=p.id,
                    name=p.name,
                    seat=p.seat,
                    turn_position=p.turn_position,
                    faith=p.faith,
                    report_victory_points=p.report_victory_points,
                    leaders=p.leaders,
                    token_hash=p.token_hash,
                    excommunications=tuple(excommunications[p.id]),
                )
                for p in players.values()
            ),
            reports=tuple(
                ReportView(
                    period=r.period,
                    status=r.status,
                    outcomes=r.outcomes,
                    resolved_at=r.resolved_at,
                    decisions=tuple(decisions[r.period]),
                )
                for r in reports.values()
            ),
        )

    def exists(self, game_id: str) -> bool:
        return bool(self.session.scalar(select(exists().where(Game.id == game_id))))


class EventRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def append(self, game_id: str, seq: int, type: str, data: dict[str, Any], at: datetime) -> None:
        self.session.add(Event(game_id=game_id, seq=seq, type=type, data=data, at=at))

    def list_after(self, game_id: str, after: int, limit: int) -> list[Event]:
        """Events of the game with ``seq > after``, oldest first, at most ``limit``."""
        statement = (
            select(Event)
            .where(Event.game_id == game_id, Event.seq > after)
            .order_by(Event.seq)
            .limit(limit)
        )
        return list(self.session.scalars(statement))


class IdempotencyRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(
        self, key_hash: str, *, for_update: bool = False, nowait: bool = False
    ) -> IdempotencyKey | None:
        """The key's row; ``for_update`` locks it (PostgreSQL), and with ``nowait`` a row
        locked by another transaction raises at once (see ``is_lock_not_available``)."""
        statement = select(IdempotencyKey).where(IdempotencyKey.key_hash == key_hash)
        if for_update:
            statement = statement.with_for_update(nowait=nowait).execution_options(
                populate_existing=True
            )
        return self.session.scalars(statement).one_or_none()

    def try_insert(self, row: IdempotencyKey) -> bool:
        """Insert ``row`` unless its ``key_hash`` exists; False when it does.

        ``INSERT ... ON CONFLICT DO NOTHING`` leaves the transaction usable either way.
        When inserted, ``row`` joins the session: later changes to it are flushed as an
        UPDATE.
        """
        if row.created_at is None:
            row.created_at = utcnow()
        table = cast(Table, IdempotencyKey.__table__)
        values = {column.key: getattr(row, column.key) for column in table.columns}
        insert = (
            postgresql_insert
            if self.session.get_bind().dialect.name == "postgresql"
            else sqlite_insert
        )
        statement = (
            insert(table).values(values).on_conflict_do_nothing(index_elements=[table.c.key_hash])
        )
        # Without preserve_rowcount, an INSERT's rowcount is not kept (psycopg gives -1).
        result = self.session.execute(statement.execution_options(preserve_rowcount=True))
        assert isinstance(result, CursorResult)
        if result.rowcount != 1:
            return False
        make_transient_to_detached(row)
        self.session.add(row)
        return True

    def delete(self, key_hash: str) -> None:
        self.session.execute(
            delete(IdempotencyKey)
            .where(IdempotencyKey.key_hash == key_hash)
            .execution_options(synchronize_session="fetch")
        )

    def purge_expired(self, now: datetime) -> int:
        """Delete the keys whose ``expires_at`` is before ``now``; return how many."""
        result = self.session.execute(
            delete(IdempotencyKey)
            .where(IdempotencyKey.expires_at < now)
            .execution_options(synchronize_session=False)
        )
        assert isinstance(result, CursorResult)
        return result.rowcount
