-- Mixed traffic for the RSS soak: 40% getGame, 20% setPlayerFaith, 20% gains,
-- 10% final-scores, 10% /healthz.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  games = load_data(args[1])
  gains = read_file(args[2])
  scores = read_file(args[3])
  math.randomseed(os.time() * 100 + (tid or 1))
end
local json = {["Content-Type"] = "application/json"}
function request()
  local r = math.random(100)
  local g = games[math.random(#games)]
  local auth = {["Authorization"] = "Bearer " .. g[2], ["Content-Type"] = "application/json"}
  if r <= 40 then
    return wrk.format("GET", "/v1/games/" .. g[1], auth)
  elseif r <= 60 then
    local pid = g[3][math.random(#g[3])]
    return wrk.format("PUT", "/v1/games/" .. g[1] .. "/players/" .. pid .. "/faith", auth,
      string.format('{"faith":%d}', math.random(0, 15)))
  elseif r <= 80 then
    return wrk.format("POST", "/v1/calculations/gains", json, gains)
  elseif r <= 90 then
    return wrk.format("POST", "/v1/calculations/final-scores", json, scores)
  end
  return wrk.format("GET", "/healthz")
end
