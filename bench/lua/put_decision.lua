-- PUT .../reports/1/decisions/{pid} by the host, on a random game of the data file (faith
-- 5,2,7,0 set: p1 and p3 are eligible), a random eligible player and choice.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
local eligible = {"p1", "p3"}
local choices = {"support", "refuse"}
function init(args)
  games = load_data(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  local g = games[math.random(#games)]
  return wrk.format("PUT",
    "/v1/games/" .. g[1] .. "/reports/1/decisions/" .. eligible[math.random(2)],
    {["Authorization"] = "Bearer " .. g[2], ["Content-Type"] = "application/json"},
    string.format('{"choice":"%s"}', choices[math.random(2)]))
end
