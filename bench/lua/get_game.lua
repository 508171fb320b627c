-- GET /v1/games/{id} for a random game of the data file (args[1]), with its host token.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  local g = games[math.random(#games)]
  return wrk.format("GET", "/v1/games/" .. g[1], {["Authorization"] = "Bearer " .. g[2]})
end
