-- boardgame.io: POST /games/faith-track/{id}/update, a random player of a random match of
-- the data file (args[1]) setting its own data {"faith": n} with its credentials.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  matches = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
local json = {["Content-Type"] = "application/json"}
function request()
  local m = matches[math.random(#matches)]
  local seat = m[2][math.random(#m[2])]
  return wrk.format("POST", "/games/faith-track/" .. m[1] .. "/update", json,
    string.format('{"playerID":"%s","credentials":"%s","data":{"faith":%d}}',
      seat[1], seat[2], math.random(0, 15)))
end
