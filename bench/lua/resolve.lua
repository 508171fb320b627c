-- POST .../reports/1/resolution with default_choice: every request resolves the period 1
-- report of a fresh game (faith already set). Threads take disjoint games; a thread that
-- runs out of games stops (the run then reports "pool exhausted"). With args[3] "wrap" it
-- starts over instead: the same requests for a ceiling, which resolves nothing.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  nthreads = tonumber(args[2] or "1")
  next_index = (tid or 1)
  wrap = args[3] == "wrap"
end
function request()
  if next_index > #games then
    if wrap then next_index = (tid or 1) else wrk.thread:stop() end
  end
  local g = games[math.min(next_index, #games)]
  next_index = next_index + nthreads
  return wrk.format("POST", "/v1/games/" .. g[1] .. "/reports/1/resolution",
    {["Authorization"] = "Bearer " .. g[2], ["Content-Type"] = "application/json"},
    '{"default_choice":"support"}')
end
