"""Hostile inputs for every endpoint of API.md, table-driven, on SQLite and PostgreSQL.

Each case names the request and the exact answer expected: status, problem slug and, for
validation errors, the `loc` of the offending field. Every answer is checked to be an RFC
9457 problem (never a 500) carrying `X-Request-ID`. Nothing may be written by a refused
request: the stored game reads the same before and after (same JSON, same `ETag`, same
event log) and no table of the database grows.

Which module holds what (one per resource, plus the concerns every game endpoint shares):

- test_reference.py          /v1/excommunication-tiles, /v1/faith-track, /v1/tile-draws
- test_calculations.py       /v1/calculations/* (a section per calculation)
- test_game_creation.py      POST /v1/games
- test_auth.py               401 / 403 / unknown game, on every stored-game endpoint
- test_games.py              a game's URLs: unknown ids, paths and methods
- test_faith.py              .../players/{player_id}/faith and .../faith
- test_faith_changes.py      .../players/{player_id}/faith-changes
- test_leaders.py            .../players/{player_id}/leaders
- test_turn_order.py         .../turn-order
- test_reports.py            .../reports/{period}, its decisions and resolution
- test_gain_adjustments.py   .../players/{player_id}/gain-adjustments
- test_game_final_scores.py  .../final-scores
- test_events.py             .../events
- test_undo.py               .../undo, .../redo and .../round-advances
- test_seats.py              .../seats/{seat}/token and .../recovery
- test_if_match.py           If-Match on every mutation (412)
- test_idempotency_keys.py   Idempotency-Key on POST /v1/games and .../resolution (the
                             other endpoints that take one: in their own module)
- test_odd_names.py          names that are odd but valid: accepted and echoed exactly

To add a case, append it to the table of the module that holds its endpoint (or its
header, for If-Match and Idempotency-Key; a new concern such as rate limits gets a module
of its own, with its test function copied from a neighbour):

    v422("faith-value-bool", "PUT", f"{G}/faith", ("body", "faith", "p1"),
         body={"faith": {"p1": True}}),

The first argument is the test id: unique in the package, `<endpoint>-<what is wrong>`.
`case(...)` takes any status and slug, `v422(...)` a validation error at `loc`, `raw(...)`
bytes sent as they are; `G` is the stored game's URL, and a case picks its game with
`setup=` and its token with `auth=` (see `Case` in harness.py). Cases that store nothing
(reference, calculations, creation) run through the `run_stateless_case` fixture, cases on
a stored game through `run_game_case` (conftest.py). A case the service gets wrong keeps
its correct expectation and is marked ``bug="..."`` (xfail, strict) or ``pg_bug="..."``
(on PostgreSQL only).
"""
