-- boardgame.io: POST /games/faith-track/{id}/join, every request taking the next free seat
-- of the open matches of the data file (args[1]): four per match. Threads take disjoint
-- seats; a thread that runs out stops (the run then reports "pool exhausted").
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
local names = {"Anna", "Bruno", "Carla", "Dario"}
function init(args)
  matches = load_data(args[1])
  nthreads = tonumber(args[2] or "1")
  next_seat = (tid or 1) - 1
end
local json = {["Content-Type"] = "application/json"}
function request()
  if next_seat >= 4 * #matches then
    wrk.thread:stop()
  end
  local seat = math.min(next_seat, 4 * #matches - 1)
  next_seat = next_seat + nthreads
  local m = matches[math.floor(seat / 4) + 1]
  return wrk.format("POST", "/games/faith-track/" .. m[1] .. "/join", json,
    string.format('{"playerID":"%d","playerName":"%s"}', seat % 4, names[seat % 4 + 1]))
end
