-- PUT /v1/games/{id}/players/{pid}/faith on a random game and player of the data file.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  local g = games[math.random(#games)]
  local players = g[3]
  local pid = players[math.random(#players)]
  return wrk.format("PUT", "/v1/games/" .. g[1] .. "/players/" .. pid .. "/faith",
    {["Authorization"] = "Bearer " .. g[2], ["Content-Type"] = "application/json"},
    string.format('{"faith":%d}', math.random(0, 15)))
end
