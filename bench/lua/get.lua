-- GET one fixed path (args[1]): /healthz, /v1/faith-track.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  path = args[1]
  req = wrk.format("GET", path)
end
function request() return req end
