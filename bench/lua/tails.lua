-- GET one fixed path (args[1]) and print one JSON line of the latency's tail: the
-- percentiles bench/tail_check.py compares (common.lua's line stops at p99).
function init(args)
  req = wrk.format("GET", args[1])
end
function request() return req end
function done(summary, latency, requests)
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,'
      .. '"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
