-- Shared by every scenario script: loads the data file and prints one JSON line at the end.
-- wrk -s bench/lua/<scenario>.lua URL -- <scenario arguments>

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end

function load_data(path)
  local chunk = assert(loadfile(path))
  return chunk()
end

function read_file(path)
  local f = assert(io.open(path, "rb"))
  local body = f:read("*a")
  f:close()
  return body
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,'
      .. '"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, e.status, e.connect + e.read + e.write + e.timeout))
end
