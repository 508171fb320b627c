-- boardgame.io: GET /games/faith-track/{id} (a match's metadata) of a random match of the
-- data file (args[1]). Its Lobby API checks no credentials on a read.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  matches = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  local m = matches[math.random(#matches)]
  return wrk.format("GET", "/games/faith-track/" .. m[1])
end
