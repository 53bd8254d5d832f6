#!/usr/bin/env bash
# Single-node Apache Kafka broker (KRaft, combined broker+controller) for tests,
# run from the Maven Central jars listed in scripts/kafka/pom.xml.
#
#   kafka.sh fetch      copy the jars into $KAFKA_HOME_DIR/libs (once; cached)
#   kafka.sh start      fetch, format storage (first time), start, wait until ready;
#                       prints KAFKA_BROKERS=127.0.0.1:<port> on stdout. Idempotent.
#                       With KAFKA_SCRAM_USERS ("name:password ..."), also a SASL/SCRAM listener
#                       with ACLs enforced (StandardAuthorizer), printed as KAFKA_SASL_BROKERS=...;
#                       the PLAINTEXT listener stays open as the test tooling's super user.
#                       With KAFKA_TLS=1 too, that listener is SASL_SSL with a private CA
#                       (make-certs.sh), printed as KAFKA_TLS_CA=<its PEM file>.
#                       Ports: KAFKA_PORT / KAFKA_CONTROLLER_PORT when set, else the ones this
#                       data dir used before when free, else free ones (so runs coexist).
#                       With KAFKA_OWNER_PID set, a watchdog stops the broker (and with
#                       KAFKA_OWNER_CLEANUP=1 deletes the data dir) once that process is gone.
#   kafka.sh stop       SIGTERM, wait, then SIGKILL; keeps the data
#   kafka.sh restart    stop + start, keeping the data
#   kafka.sh kill       SIGKILL at once (crash; for chaos tests), keeps the data
#   kafka.sh status     exit 0 and print KAFKA_BROKERS=... if running and answering,
#                       1 if its process is up but not answering, 3 if stopped
#   kafka.sh clean      stop and delete the data dir (the jars stay cached)
#   kafka.sh logs [N]   last N (100) lines of the broker log
#   kafka.sh run-class CLASS [ARGS...]   run a class from the jars (tools), e.g.
#                       org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:39092 --list
#
# Only the KAFKA_BROKERS line goes to stdout; progress and errors go to stderr.
# See scripts/kafka/README.md for the environment variables.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
POM="$SCRIPT_DIR/pom.xml"

KAFKA_HOME_DIR="$(realpath -m "${KAFKA_HOME_DIR:-$REPO_ROOT/.kafka}")"
KAFKA_DATA_DIR="$(realpath -m "${KAFKA_DATA_DIR:-$KAFKA_HOME_DIR/data}")"
KAFKA_HOST=127.0.0.1
KAFKA_PORT="${KAFKA_PORT:-}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-}"
KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-}"
KAFKA_SCRAM_USERS="${KAFKA_SCRAM_USERS:-}"
KAFKA_TLS="${KAFKA_TLS:-0}"
KAFKA_OWNER_PID="${KAFKA_OWNER_PID:-}"
KAFKA_OWNER_CLEANUP="${KAFKA_OWNER_CLEANUP:-0}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
KAFKA_JVM_OPTS="${KAFKA_JVM_OPTS:-}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-60}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_EXTRA_CONFIG="${KAFKA_EXTRA_CONFIG:-}"
KAFKA_MVN_ARGS="${KAFKA_MVN_ARGS:-}"

LIBS_DIR="$KAFKA_HOME_DIR/libs"
# The tools (StorageTool, ConfigCommand, run-class) live for a second: the client compiler alone and
# one GC thread start them with about 40 % less CPU (2.3 -> 1.4 s for a format).
TOOL_JVM=(-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
LOG_DIRS="$KAFKA_DATA_DIR/kraft-logs"      # Kafka's log.dirs (topic data + __cluster_metadata)
APP_LOG_DIR="$KAFKA_DATA_DIR/logs"         # log4j output
SERVER_LOG="$APP_LOG_DIR/server.log"
CONSOLE_LOG="$KAFKA_DATA_DIR/kafka.out"    # the JVM's own stdout/stderr
PID_FILE="$KAFKA_DATA_DIR/kafka.pid"
PROPS="$KAFKA_DATA_DIR/server.properties"
LOG4J="$KAFKA_DATA_DIR/log4j.properties"
TOOLS_LOG4J="$KAFKA_HOME_DIR/tools-log4j.properties"  # for StorageTool and run-class
CLUSTER_ID_FILE="$KAFKA_DATA_DIR/cluster.id"
PORTS_FILE="$KAFKA_DATA_DIR/ports"          # "<client port> <controller port> [<sasl port>]" of this data dir
SCRAM_MARKER="$KAFKA_DATA_DIR/scram-users.sha256"  # which KAFKA_SCRAM_USERS the metadata holds
# KAFKA_TLS=1: ca.pem, broker.p12, password. KAFKA_TLS_DIR shares them between brokers (a test
# run's brokers: made once, under a lock, instead of seven keytool runs per broker).
TLS_DIR="${KAFKA_TLS_DIR:-$KAFKA_DATA_DIR/tls}"
WATCHDOG_LOG="$KAFKA_DATA_DIR/watchdog.log"
WATCHDOG_PID_FILE="$KAFKA_DATA_DIR/watchdog.pid"

log() { printf '[kafka.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ "$KAFKA_TLS" == 0 || "$KAFKA_TLS" == 1 ]] || die "KAFKA_TLS must be 0 or 1, got '$KAFKA_TLS'"
for v in KAFKA_START_TIMEOUT KAFKA_STOP_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
done
for v in KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_SASL_PORT KAFKA_OWNER_PID; do
  [[ -z "${!v}" || "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
done

KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\([^<]*\)</kafka.version>.*:\1:p' "$POM" | head -n 1)"
[[ -n "$KAFKA_VERSION" ]] || die "cannot read <kafka.version> from $POM"
MARKER="$LIBS_DIR/.fetched-kafka-$KAFKA_VERSION"

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi

pom_hash() { sha256sum "$POM" | cut -d' ' -f1; }
fetched() { [[ -f "$MARKER" && "$(cat "$MARKER")" == "$(pom_hash)" ]]; }

# ---------------------------------------------------------------- fetch
cmd_fetch() {
  fetched && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn not found: Maven is needed once to fetch the Kafka jars"
  mkdir -p "$KAFKA_HOME_DIR"
  # One fetch at a time (parallel test runners may all call start).
  exec 8>"$KAFKA_HOME_DIR/.fetch.lock"
  flock -w 900 8 || die "timed out waiting for another fetch (lock $KAFKA_HOME_DIR/.fetch.lock)"
  if fetched; then exec 8>&-; return 0; fi

  log "fetching Kafka $KAFKA_VERSION jars with Maven into $LIBS_DIR (once; cached after) ..."
  local t0=$SECONDS tmp="$KAFKA_HOME_DIR/libs.tmp.$$" mvn_log="$KAFKA_HOME_DIR/fetch.log"
  rm -rf "$tmp"
  # shellcheck disable=SC2086  # KAFKA_MVN_ARGS is a list of words on purpose
  if ! mvn -q -B $KAFKA_MVN_ARGS -f "$POM" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" >"$mvn_log" 2>&1; then
    tail -n 40 "$mvn_log" >&2 || true
    rm -rf "$tmp"
    die "mvn dependency:copy-dependencies failed (full output: $mvn_log)"
  fi
  [[ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ]] || { rm -rf "$tmp"; die "kafka_2.13-$KAFKA_VERSION.jar missing after mvn"; }
  rm -rf "$LIBS_DIR"
  mv "$tmp" "$LIBS_DIR"
  pom_hash >"$MARKER"
  log "fetched $(find "$LIBS_DIR" -name '*.jar' | wc -l) jars in $((SECONDS - t0)) s"
  exec 8>&-
}

# ---------------------------------------------------------------- helpers
# The process helpers (lock, ports, readiness, watchdog) and the storage and configuration writers.
source "$SCRIPT_DIR/kafka-process.sh"
source "$SCRIPT_DIR/kafka-storage.sh"

# ---------------------------------------------------------------- commands
do_start() {
  local pid t0=$SECONDS
  if sasl_enabled; then scram_users >/dev/null; fi   # a malformed list stops here (in this shell), before anything starts
  if [[ "$KAFKA_TLS" == 1 ]] && ! sasl_enabled; then die "KAFKA_TLS=1 needs KAFKA_SCRAM_USERS (TLS is for the SASL listener)"; fi
  if pid="$(running_pid)"; then
    resolve_ports any
    if wait_ready "$pid" -1; then start_watchdog "$pid"; print_address; return 0; fi
    fail_start "the broker started by this script (pid $pid, data $KAFKA_DATA_DIR) does not answer on $KAFKA_HOST:$KAFKA_PORT within ${KAFKA_START_TIMEOUT}s"
  fi
  resolve_ports new
  local p
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" $KAFKA_SASL_PORT; do
    port_open "$p" && die "port $KAFKA_HOST:$p is already in use by another process (not a broker started by this script for $KAFKA_DATA_DIR); set KAFKA_PORT / KAFKA_CONTROLLER_PORT"
  done

  write_config
  format_storage

  LOG_OFFSET="$(stat -c %s "$SERVER_LOG" 2>/dev/null || echo 0)"
  CONSOLE_OFFSET="$(stat -c %s "$CONSOLE_LOG" 2>/dev/null || echo 0)"
  # shellcheck disable=SC2206  # word splitting of the option strings is intended
  local jvm=($KAFKA_HEAP_OPTS
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
    -Djava.awt.headless=true -Djava.net.preferIPv4Stack=true
    "-Dlog4j.configuration=file:$LOG4J" "-Dkafka.logs.dir=$APP_LOG_DIR"
    $KAFKA_JVM_OPTS
    "-Dkafka.sh.data.dir=$KAFKA_DATA_DIR")
  rm -f "$PID_FILE"
  # New session so the broker outlives the caller's process group; the child
  # writes its own pid, then execs java. Lock fds 8/9 must not leak into it.
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
    "$JAVA" "${jvm[@]}" -cp "$LIBS_DIR/*" kafka.Kafka "$PROPS" \
    </dev/null >>"$CONSOLE_LOG" 2>&1 8>&- 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do [[ -s "$PID_FILE" ]] && break; sleep 0.1; done
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [[ -n "$pid" ]] || fail_start "the broker process did not start"
  start_watchdog "$pid"   # before waiting: a start interrupted from here on leaves no orphan
  log "started Kafka $KAFKA_VERSION (pid $pid) on $KAFKA_HOST:$KAFKA_PORT, waiting until it is ready ..."

  local rc=0
  wait_ready "$pid" "$LOG_OFFSET" || rc=$?
  case $rc in
    0) add_scram_users; log "ready in $((SECONDS - t0)) s (log: $SERVER_LOG)"; print_address ;;
    2) rm -f "$PID_FILE"; fail_start "the broker exited during startup" ;;
    *) fail_start "the broker was not ready within ${KAFKA_START_TIMEOUT}s (pid $pid still running; use 'kafka.sh stop')" ;;
  esac
}

# $1: first signal (TERM or KILL)
do_stop() {
  local sig=${1:-TERM} pid t0=$SECONDS deadline
  if ! pid="$(running_pid)"; then
    log "not running"
    return 0
  fi
  kill -"$sig" "$pid" 2>/dev/null || true
  deadline=$((SECONDS + KAFKA_STOP_TIMEOUT))
  while alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
  if alive "$pid"; then
    log "pid $pid did not stop within ${KAFKA_STOP_TIMEOUT}s after SIG$sig, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
    alive "$pid" && die "pid $pid survived SIGKILL"
  fi
  # Wait for the ports to be released so that an immediate start can bind them.
  deadline=$((SECONDS + 10))
  while { port_open "$KAFKA_PORT" || port_open "$KAFKA_CONTROLLER_PORT" || { [[ -n "$KAFKA_SASL_PORT" ]] && port_open "$KAFKA_SASL_PORT"; }; } && ((SECONDS < deadline)); do sleep 0.1; done
  rm -f "$PID_FILE"
  log "stopped (pid $pid, SIG$sig) in $((SECONDS - t0)) s"
}

cmd_status() {
  local pid
  resolve_ports any
  if pid="$(running_pid)"; then
    if api_versions_ok; then
      log "running: Kafka $KAFKA_VERSION, pid $pid, data $KAFKA_DATA_DIR"
      print_address
      return 0
    fi
    log "process $pid is up but does not answer on $KAFKA_HOST:$KAFKA_PORT (starting, stopping or stuck)"
    return 1
  fi
  log "stopped (data dir $KAFKA_DATA_DIR)"
  return 3
}

usage() {  # $1: exit code
  sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
  fetch) cmd_fetch ;;
  start) cmd_fetch; lock_data_dir; do_start ;;
  stop) resolve_ports any; lock_data_dir; do_stop TERM ;;
  kill) resolve_ports any; lock_data_dir; do_stop KILL ;;
  restart) cmd_fetch; resolve_ports any; lock_data_dir; do_stop TERM; do_start ;;
  watch) [[ $# -eq 3 ]] || die "usage: kafka.sh watch OWNER_PID OWNER_START_TIME BROKER_PID"; cmd_watch "$@" ;;
  status) cmd_status ;;
  clean)
    if [[ -d "$KAFKA_DATA_DIR" ]]; then resolve_ports any; lock_data_dir; do_stop TERM; fi
    rm -rf "$KAFKA_DATA_DIR"
    log "removed $KAFKA_DATA_DIR"
    ;;
  logs) tail -n "${1:-100}" "$SERVER_LOG" ;;
  run-class)
    [[ $# -ge 1 ]] || die "usage: kafka.sh run-class CLASS [ARGS...]"
    cmd_fetch
    write_tools_log4j
    exec "$JAVA" "${TOOL_JVM[@]}" -Djava.net.preferIPv4Stack=true -Dlog4j.configuration="file:$TOOLS_LOG4J" \
      -cp "$LIBS_DIR/*" "$@"
    ;;
  -h | --help | help) usage 0 ;;
  *) usage ;;
esac
