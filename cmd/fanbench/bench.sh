#!/usr/bin/env bash
# bench.sh builds and runs the side-by-side comparison of tenpin, peers/bare
# and peers/centrifuge with fanbench (see README.md). It runs from anywhere:
# the programs are built from this directory and the repository around it.
#
#   bench.sh build                     build the four programs into BIN
#   bench.sh run OUT.jsonl N LANES...  N rounds of each server at each lane count
#   bench.sh table OUT.jsonl...        the runs side by side, a table a metric
#
# Every run gets a fresh server, started here and ended by its PID. Before each
# run bench.sh waits (up to MAXWAIT seconds) for the one-minute load average to
# fall to MAXLOAD, so that other work on the machine does not skew it. The
# servers take turns (tenpin, bare, centrifuge, tenpin, …) so that a slow
# spell of the machine hits them alike.
#
# Environment: BIN, the programs' directory (${TMPDIR:-/tmp}/fanbench);
# TENPIN, the tenpin checkout to build (this repository); HOST (127.0.0.77),
# SERVERS ("tenpin bare centrifuge"), DURATION (60s), RAMP (10s),
# MAXLOAD (0.7), MAXWAIT (1200).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath -m "${BIN:-${TMPDIR:-/tmp}/fanbench}")
tenpin=${TENPIN:-$here/../..}

host=${HOST:-127.0.0.77}
servers=${SERVERS:-tenpin bare centrifuge}
duration=${DURATION:-60s}
ramp=${RAMP:-10s}
maxload=${MAXLOAD:-0.7}
maxwait=${MAXWAIT:-1200}

# build builds fanbench and the peers from this module, and tenpin from its
# own (the repository's root module, where Centrifuge never enters).
build() {
	(cd "$here" && go build -o "$bin/" . ./peers/bare ./peers/centrifuge)
	(cd "$tenpin" && go build -o "$bin/tenpin" ./cmd/tenpin)
	echo "bench: built fanbench, bare, centrifuge and tenpin into $bin" >&2
}

# quiet waits until the one-minute load average is at most maxload, or
# maxwait seconds have gone by.
quiet() {
	local waited=0 load
	while load=$(cut -d' ' -f1 /proc/loadavg) && awk -v l="$load" -v m="$maxload" 'BEGIN { exit !(l > m) }'; do
		if ((waited >= maxwait)); then
			echo "bench: load average still $load after ${waited}s: running anyway" >&2
			return
		fi
		sleep 20
		waited=$((waited + 20))
	done
}

# serve NAME PORT starts a server and sets pid once it listens, and data to
# the data directory it was given, if any.
serve() {
	data=
	if ss -Hltn "sport = :$2" | grep -q .; then
		echo "bench: port $2 is taken" >&2
		exit 1
	fi
	case $1 in
	# tenpin: the default, every event stored in its embedded JetStream (a fresh
	# data directory a run); tenpin-mem: -memory, nothing stored. Load runs
	# create every lane and connection from one address: lift those limits.
	tenpin)
		data=$(mktemp -d)
		"$bin/tenpin" -addr "$host:$2" -log-level warn -create-burst 100000 -conns-per-addr 0 -lanes-per-addr 0 -data "$data" &
		;;
	tenpin-mem) "$bin/tenpin" -addr "$host:$2" -log-level warn -create-burst 100000 -conns-per-addr 0 -lanes-per-addr 0 -memory & ;;
	bare) "$bin/bare" -addr "$host:$2" & ;;
	centrifuge) "$bin/centrifuge" -addr "$host:$2" & ;;
	*) echo "bench: no server $1" >&2 && exit 2 ;;
	esac
	pid=$!
	for _ in $(seq 50); do
		if (exec 3<>"/dev/tcp/$host/$2") 2>/dev/null; then
			return
		fi
		sleep 0.1
	done
	echo "bench: $1 does not listen on $host:$2" >&2
	kill "$pid"
	exit 1
}

run() {
	local out=$1 rounds=$2 port proto
	shift 2
	for lanes; do
		for round in $(seq "$rounds"); do
			for s in $servers; do
				quiet
				case $s in
				tenpin) port=38080 proto=tenpin ;;
				tenpin-mem) port=38083 proto=tenpin ;;
				bare) port=38081 proto=tenpin ;;
				centrifuge) port=38082 proto=centrifuge ;;
				esac
				serve "$s" "$port" 2>>"$out.servers.log"
				echo "bench: $(date +%T) $s, $lanes lanes, round $round, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
				"$bin/fanbench" -proto "$proto" -label "$s" -url "ws://$host:$port" -pid "$pid" \
					-lanes "$lanes" -duration "$duration" -ramp "$ramp" -out "$out" 2>/dev/null || true
				kill "$pid"
				wait "$pid" || true
				if [[ -n $data ]]; then
					rm -rf "$data"
				fi
			done
		done
	done
}

# table prints, for each metric, the servers against the lane counts: the mean
# of the runs and, where there are several, each run's figure. A run during
# which other processes used more than MAXOTHER cores (0.25) is left out, and
# named.
table() {
	jq -rs --argjson maxother "${MAXOTHER:-0.25}" '
	def r(d): (. * pow(10; d) | round) / pow(10; d);
	def metrics: [
		["boards delivered per second", ["boards_per_s"], 0],
		["fan-out p50 (ms)", ["fanout", "p50_ms"], 2],
		["fan-out p99 (ms)", ["fanout", "p99_ms"], 1],
		["fan-out max (ms)", ["fanout", "max_ms"], 0],
		["ack p50 (ms)", ["ack", "p50_ms"], 2],
		["ack p99 (ms)", ["ack", "p99_ms"], 1],
		["server CPU seconds per 1,000 boards", ["server_cpu_s_per_1000_boards"], 4],
		["server CPU (cores)", ["server_cpu_cores"], 2],
		["server RSS per connection (KiB)", ["server_rss_kib_per_conn"], 1],
		["bytes per board on the wire", ["bytes_per_board"], 0],
		["generator CPU (cores)", ["generator_cpu_cores"], 2],
		["other processes CPU (cores)", ["other_cpu_cores"], 2],
		["load average at start", ["loadavg_at_start"], 2],
		["seq gaps", ["seq_gaps"], 0],
		["errors", ["errors"], 0]
	];
	(.[] | select(.other_cpu_cores > $maxother)
		| "left out: \(.config.label), \(.config.lanes) lanes: other processes used \(.other_cpu_cores | r(2)) cores"),
	(map(select(.other_cpu_cores <= $maxother)) as $runs
	| ($runs | map(.config.lanes) | unique) as $lanes
	| (["tenpin", "tenpin-mem", "bare", "centrifuge"] | map(select(. as $s | $runs | any(.config.label == $s)))) as $servers
	| metrics[] as [$title, $path, $d]
	| "\n### \($title)\n",
	  "| server | " + ($lanes | map("\(.) lanes") | join(" | ")) + " |",
	  "| --- |" + ($lanes | map(" --- |") | join("")),
	  ($servers[] as $s | "| \($s) | " + ([$lanes[] as $l
		| [$runs[] | select(.config.label == $s and .config.lanes == $l) | getpath($path) | r($d)]
		| if length == 0 then "" elif length == 1 then "\(.[0])"
		  else "\(add / length | r($d)) (\(map(tostring) | join(", ")))" end] | join(" | ")) + " |"))
	' "$@"
}

case ${1:-} in
build) build ;;
run) shift && run "$@" ;;
table) shift && table "$@" ;;
*) sed -n '2,21s/^# \{0,1\}//p' "$0" && exit 2 ;;
esac
