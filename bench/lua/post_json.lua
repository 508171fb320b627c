-- POST a fixed JSON body (file args[2]) to a fixed path (args[1]): the calculations.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "common.lua")
function init(args)
  req = wrk.format("POST", args[1], {["Content-Type"] = "application/json"}, read_file(args[2]))
end
function request() return req end
