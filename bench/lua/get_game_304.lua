-- GET /v1/games/{id} with If-None-Match: "1" for a random game of the data file (args[1]):
-- the seeded games are at version 1 while no write scenario has run, so every answer is a
-- 304 (run.py orders this scenario before the writes and flags any other status).
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  local g = games[math.random(#games)]
  return wrk.format("GET", "/v1/games/" .. g[1],
    {["Authorization"] = "Bearer " .. g[2], ["If-None-Match"] = '"1"'})
end
