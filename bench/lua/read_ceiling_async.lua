-- GET /bench/read-ceiling-async/{id} of bench/ceiling.py for a random game of the data file:
-- the same SELECT through psycopg async connections (PostgreSQL only).
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  return wrk.format("GET", "/bench/read-ceiling-async/" .. games[math.random(#games)][1])
end
