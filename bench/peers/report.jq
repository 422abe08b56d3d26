# bench/peers/report.jq - a kernel's bench-peers figures (one element of
# peers.json's "kernels") as the table a person reads: per tenant the truth and
# each estimate with its error, then the ratios (lrugen's mean |error| over
# the best peer's, who is closest per tenant, lrugen's CPU over each peer's).
# Usage: jq -r -f report.jq KERNEL.json (bench/peers/wss.sh's peers.json)
def mib: if . == null then "n/a" else (. / 1048576 * 10 | round / 10 | tostring) end;
def pad($n): tostring | if length < $n then (" " * ($n - length)) + . else . end;
def rpad($n): tostring | if length < $n then . + (" " * ($n - length)) else . end;
# signed error in % of $truth; null when the estimator had no answer
def err($truth): if . == null or $truth == 0 then null else ((. - $truth) * 1000 / $truth | round / 10) end;
def abserr($truth): err($truth) | if . == null then null else fabs end;
def f1: tostring | if test("[.]") then . else . + ".0" end;
def pct: if . == null then "n/a" else ((if . > 0 then "+" else "" end) + f1) end;
def mean: map(select(. != null)) | if length == 0 then null else (add / length * 10 | round / 10) end;
def ratio($a; $b):
	if $a == null or $b == null then "n/a"
	elif $b == 0 then (if $a == 0 then "1" else "inf" end)
	else ($a / $b * 100 | round / 100 | tostring) end;

# one round (4k or thp pages) of a kernel: its table and ratios
def round_report($est; $release):
	. as $run
	| ($est | map(select(.key != "lrugen"))) as $peers
	| [$est[] | .key as $k | {key: $k, label: .label,
		mean: ([$run.tenants[] | .truth_hot_bytes as $t | .[$k] | abserr($t)] | mean)}] as $means
	| ($means | map(select(.key != "lrugen" and .mean != null)) | min_by(.mean)) as $best
	| ($means[] | select(.key == "lrugen")) as $l
	| "hot set (working set at T = 4.5 s) with \(.pages) pages, MiB and error in %, kernel \($release):",
	  "  " + ("MEMCG" | rpad(8)) + ("MODE" | rpad(9)) + ("TRUTH" | pad(6)) + ($est | map(.label | pad(15)) | join("")),
	  (.tenants[] | . as $t |
		"  " + ($t.memcg | ltrimstr("/jobs/") | rpad(8)) + ($t.mode | rpad(9)) + ($t.truth_hot_bytes | mib | pad(6)) +
		($est | map(.key as $k | $t[$k] as $v | if $v == null then "n/a" else
			"\($v | mib) \($v | err($t.truth_hot_bytes) | pct)" end +
			(if $k == "lrugen" and (($t.lrugen_warnings // []) | length) > 0 then "*" else "" end)
			| pad(15)) | join(""))),
	  ([.tenants[] | select((.lrugen_warnings // []) | length > 0) |
		"\(.memcg | ltrimstr("/jobs/")): \(.lrugen_warnings | join(", "))"] |
		if length > 0 then "  * lrugen said this figure is a bound: " + join("; ") +
			" (README: Accuracy warnings)" else empty end),
	  "mean |error|: " + ($means | map("\(.label) \(.mean | if . == null then "n/a" else "\(.)%" end)") | join(", ")),
	  "lrugen's mean |error| over the best peer's (\($best.label // "none")): \(ratio($l.mean; $best.mean))",
	  "closest to the truth: " + ([.tenants[] | . as $t |
		([$est[] | {label: .label, e: ($t[.key] | abserr($t.truth_hot_bytes))} | select(.e != null)] | min_by(.e)) as $w |
		"\($t.memcg | ltrimstr("/jobs/")) \([$est[] | select(($t[.key] | abserr($t.truth_hot_bytes)) == $w.e) | .label]
			| join("+"))"] | join(", ")),
	  (.cpu_ticks as $c |
		"CPU per answer (clock ticks of 10 ms): lrugen \($c.lrugen) (4 agings and a read, \($c.lrugen_wall_ms) ms)",
		($peers[] | select($c[.key] != null) |
		"  \(.label) \($c[.key]) (\(if .key == "page_idle" then "its process, one pass over T"
			else "kdamond threads, \($c.damon_seconds) s" end)): lrugen/\(.label) = \(ratio($c.lrugen; $c[.key]))")),
	  (if .memory then (.memory as $m |
		"memory: lrugen \($m.lrugen_maxrss_kb // "?") KiB peak RSS (largest of its 5 runs)" +
		(if $m.page_idle_maxrss_kb then ", idle-pages \($m.page_idle_maxrss_kb) KiB" else "" end) +
		"; DAMON's regions: " + ([$peers[] | select(($m.damon_regions[.key] // null) != null) |
			"\(.label) \($m.damon_regions[.key])" + (if $m.damon_region_bytes then
			" (\($m.damon_regions[.key] * $m.damon_region_bytes / 1024 | round) KiB)" else "" end)] | join(", ")) +
		(if $m.damon_region_bytes then " at \($m.damon_region_bytes) bytes a region" else "" end) +
		", plus a kernel thread per kdamond") else empty end),
	  "";

# a kernel's reclaim run (bench/peers/reclaim.sh's reclaim.json)
def reclaim_report:
	"reclaim of a tenant's cold set (\(.methods[0].cold_bytes | mib) MiB cold, \(.hot_bytes | mib) MiB hot, zram swap), \(.seconds) s each, kernel \(.release):",
	"  " + ("METHOD" | rpad(16)) + (["COLD FREED", "%", "HOT REFAULT", "T90 s", "CPU ticks", "PSI ms", "avg10"]
		| map(pad(12)) | join("")),
	(.methods[] | "  " + (.method | rpad(16)) +
		(if .available == false then ("n/a" | pad(12)) else
		([(.freed_bytes | mib), (.freed_bytes * 1000 / .cold_bytes | round / 10 | f1),
		  (.refaulted_bytes | mib), (.t90_s // "not reached" | tostring), .cpu_ticks, .psi_some_ms,
		  (.psi_some_avg10 // "n/a")] | map(pad(12)) | join("")) end) +
		(if .note and (.note | test("^kdamond") | not) then "  (\(.note | split("\n")[0]))" else "" end) +
		(if .detail then "  (\(.detail))" else "" end)),
	"";

if has("methods") then reclaim_report else
.estimators as $est | .release as $rel
| (.rounds[] | round_report($est; $rel)),
  (if (.damon_stat // "") != "" then
	(.damon_stat | split("\n") | map(split(" ") | {key: .[0], value: .[1]}) | from_entries) as $d |
	($d.memory_idle_ms_percentiles // "" | split(",")) as $p |
	"damon_stat (system-wide, no answer per memcg; read 6 s after the tenants started, then off):",
	"  memory idle ms p10 \($p[10] // "?"), p50 \($p[50] // "?"), p90 \($p[90] // "?"), p99 \($p[99] // "?");" +
	" estimated bandwidth \(($d.estimated_memory_bandwidth // "0" | tonumber) / 1048576 | round) MiB/s"
   else empty end),
  (if .page_idle then empty else "idle page tracking: not built in this kernel (CONFIG_IDLE_PAGE_TRACKING)" end)
end
