-- GET <args[2]><id> of bench/in_app.py (--in-app) for a random game of the data file (args[1]), no
-- token: /bench/read-ceiling/, /bench/read-ceiling-raw/ or /bench/read-ceiling-async/.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  prefix = args[2]
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  return wrk.format("GET", prefix .. games[math.random(#games)][1])
end
