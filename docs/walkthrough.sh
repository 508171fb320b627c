#!/usr/bin/env bash
# One full game by curl: create, faith, a Faith change, an undo, decisions, three Vatican
# Reports, gains, scores.
# The README shows these same commands. Usage: BASE=http://127.0.0.1:8000 bash docs/walkthrough.sh
set -euo pipefail
BASE="${BASE:-http://127.0.0.1:8000}"
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$1"; }
JSON=(-H 'Content-Type: application/json')
# The created game's answer, in a file of this run's own (two runs at once must not read
# each other's tokens).
GAME_JSON=$(mktemp)
trap 'rm -f "$GAME_JSON"' EXIT

# 1. Create a game: three players; the table names its three tiles (or send "seed": 42
#    to draw them reproducibly). The tokens are shown only in this answer.
curl -sS -X POST "$BASE/v1/games" "${JSON[@]}" -H "Idempotency-Key: $(python3 -c 'import uuid; print(uuid.uuid4())')" \
  -d '{"players": [{"name": "Anna", "leaders": ["sisto_iv"]}, {"name": "Bruno"}, {"name": "Carla"}],
       "tiles": {"1": "I-2", "2": "II-7", "3": "III-4"}}' \
  > "$GAME_JSON"
GAME=$(json '["game"]["id"]' < "$GAME_JSON")
HOST=$(json '["host_token"]' < "$GAME_JSON")
ANNA=$(json '["player_tokens"]["p1"]' < "$GAME_JSON")
AUTH=(-H "Authorization: Bearer $HOST")
echo "game $GAME, tiles: $(json '["game"]["tiles"]["1"]["id"]' < "$GAME_JSON") ..."

# 2. End of round 2: the host enters everyone's faith (above 15 is kept as 15).
curl -sS -X PUT "$BASE/v1/games/$GAME/faith" "${JSON[@]}" "${AUTH[@]}" \
  -d '{"faith": {"p1": 5, "p2": 2, "p3": 8}}' | json '["faith_lost"]'

# 2b. Carla gains 1 Faith: a change adds to what she has (changes sent at once all count).
curl -sS -X POST "$BASE/v1/games/$GAME/players/p3/faith-changes" "${JSON[@]}" "${AUTH[@]}" \
  -d '{"delta": 1}' | json '["player"]["faith"]'

# 2c. A +3 for Bruno by mistake (it would make him eligible): the host undoes it.
curl -sS -X POST "$BASE/v1/games/$GAME/players/p2/faith-changes" "${JSON[@]}" "${AUTH[@]}" \
  -d '{"delta": 3}' > /dev/null
curl -sS -X POST "$BASE/v1/games/$GAME/undo" "${AUTH[@]}" \
  | python3 -c "import json,sys; d=json.load(sys.stdin); print('undone', d['undone']['type'], [p['faith'] for p in d['game']['players']])"

# 3. Eligible players choose; Anna with her own token, Carla through the host.
curl -sS -X PUT "$BASE/v1/games/$GAME/reports/1/decisions/p1" "${JSON[@]}" \
  -H "Authorization: Bearer $ANNA" -d '{"choice": "support"}' | json '["decisions"]'
curl -sS -X PUT "$BASE/v1/games/$GAME/reports/1/decisions/p3" "${JSON[@]}" "${AUTH[@]}" \
  -d '{"choice": "refuse"}' > /dev/null

# 4. Resolve the period I report (If-Match: the version just read; retry-safe with a key).
VERSION=$(curl -sS "$BASE/v1/games/$GAME" "${AUTH[@]}" | json '["version"]')
curl -sS -X POST "$BASE/v1/games/$GAME/reports/1/resolution" "${JSON[@]}" "${AUTH[@]}" \
  -H "If-Match: \"$VERSION\"" -H "Idempotency-Key: $(python3 -c 'import uuid; print(uuid.uuid4())')" -d '{}' \
  > /tmp/walkthrough-report1.json
python3 - <<'PY'
import json
for o in json.load(open("/tmp/walkthrough-report1.json"))["outcomes"]:
    print(o["player_id"], o["outcome"], "tile", o["tile_id"], "VP", o["victory_points"], o["rules"])
PY

# 5. Periods II and III: eligible players without a choice take default_choice;
#    the last report needs no decisions (R-REP-6).
curl -sS -X PUT "$BASE/v1/games/$GAME/faith" "${JSON[@]}" "${AUTH[@]}" -d '{"faith": {"p1": 4, "p2": 4, "p3": 12}}' > /dev/null
curl -sS -X POST "$BASE/v1/games/$GAME/reports/2/resolution" "${JSON[@]}" "${AUTH[@]}" \
  -d '{"default_choice": "support"}' | json '["status"]'
curl -sS -X PUT "$BASE/v1/games/$GAME/faith" "${JSON[@]}" "${AUTH[@]}" -d '{"faith": {"p1": 3, "p2": 15, "p3": 7}}' > /dev/null
curl -sS -X POST "$BASE/v1/games/$GAME/reports/3/resolution" "${JSON[@]}" "${AUTH[@]}" -d '{}' | json '["status"]'

# 6. Bruno (excommunicated in period I: I-2, 1 coin fewer per gain) takes a card whose
#    immediate effect gives 2 stone and a Council Privilege taken as 2 coins: one gain.
curl -sS -X POST "$BASE/v1/games/$GAME/players/p2/gain-adjustments" "${JSON[@]}" "${AUTH[@]}" \
  -d '{"gains": [{"source": {"kind": "card_immediate", "name": "Stonemason"}, "resources": {"stone": 2}, "privileges": [{"coins": 2}]}]}' \
  | json '["total"]'

# 7. Final scores with every stored excommunication applied.
curl -sS -X POST "$BASE/v1/games/$GAME/final-scores" "${JSON[@]}" "${AUTH[@]}" -d '{"players": [
  {"id": "p1", "victory_points": 40, "military_points": 6, "territories": 4, "characters": 3, "venture_points": 8, "resources": {"coins": 4, "wood": 2}},
  {"id": "p2", "victory_points": 31, "military_points": 9, "territories": 3, "characters": 2, "venture_points": 5},
  {"id": "p3", "victory_points": 26, "military_points": 9, "territories": 5, "resources": {"stone": 5}}]}' \
  > /tmp/walkthrough-scores.json
python3 - <<'PY'
import json
for p in json.load(open("/tmp/walkthrough-scores.json"))["players"]:
    print(p["player_id"], p["total"], [(x["part"], x["change"], x.get("by")) for x in p["parts"]])
PY

# 8. Everything that changed, in order.
curl -sS "$BASE/v1/games/$GAME/events" "${AUTH[@]}" | python3 -c \
  "import json,sys; [print(e['seq'], e['type']) for e in json.load(sys.stdin)['events']]"
