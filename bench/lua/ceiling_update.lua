-- PUT /bench/txn-ceiling/{n} of bench/in_app.py (--in-app): one UPDATE of a random row per request.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  rows = tonumber(args[1])
  math.randomseed(os.time() * 100 + (tid or 1))
end
function request()
  return wrk.format("PUT", "/bench/txn-ceiling/" .. math.random(rows))
end
