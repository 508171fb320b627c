-- GET /v1/games/{id} for a random game of the data file (args[1]), with its host token;
-- with args[2], sent as If-None-Match (get-game-304 sends '"1"': the seeded version, so
-- every answer is a 304 while no write scenario has run; "" for none); with args[3], sent as
-- X-Forwarded-For (as a trusted proxy forwards a client's request).
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  if args[2] ~= nil and args[2] ~= "" then cached = args[2] end
  forwarded_for = args[3]
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  local g = games[math.random(#games)]
  local headers = {["Authorization"] = "Bearer " .. g[2]}
  if cached then headers["If-None-Match"] = cached end
  if forwarded_for then headers["X-Forwarded-For"] = forwarded_for end
  return wrk.format("GET", "/v1/games/" .. g[1], headers)
end
