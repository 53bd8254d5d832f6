# Sourced by kafka.sh: the broker process's helpers — the data dir's lock, liveness and ports,
# SCRAM users, readiness (ApiVersions), start failures, and the owner watchdog. Only functions:
# kafka.sh sets the variables they read (paths, ports, KAFKA_*) before calling them.
# shellcheck shell=bash
# ---------------------------------------------------------------- helpers
lock_data_dir() {
  mkdir -p "$KAFKA_DATA_DIR"
  exec 9>"$KAFKA_DATA_DIR/.lock"
  flock -w $((KAFKA_START_TIMEOUT + KAFKA_STOP_TIMEOUT + 60)) 9 \
    || die "timed out waiting for another kafka.sh on $KAFKA_DATA_DIR"
}

# A live, non-zombie process?
alive() {
  local pid=$1 state
  kill -0 "$pid" 2>/dev/null || return 1
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo X)"
  [[ "$state" != Z && "$state" != X ]]
}

# Prints the pid of the broker this script started for this data dir, if it runs.
running_pid() {
  [[ -s "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Dkafka.sh.data.dir=$KAFKA_DATA_DIR " \
    && { echo "$pid"; return 0; }
  rm -f "$PID_FILE"   # stale
  return 1
}

port_open() {
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$KAFKA_HOST" "$1" 2>/dev/null
}

# A port nothing listens on, outside the ephemeral range (outgoing connections never take it).
free_port() {
  local port i
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + RANDOM % 12000))
    [[ "$port" != "${1:-}" ]] && ! port_open "$port" && { echo "$port"; return 0; }
  done
  die "found no free port in 20000-31999"
}

# SCRAM users as "name password" lines (KAFKA_SCRAM_USERS: "name:password" words, space or comma
# separated; names and passwords of letters, digits and - _ . only, so that no quoting is needed).
scram_users() {
  local pair
  for pair in ${KAFKA_SCRAM_USERS//,/ }; do
    [[ "$pair" =~ ^([A-Za-z0-9._-]+):([A-Za-z0-9._-]+)$ ]] || die "KAFKA_SCRAM_USERS: '${pair%%:*}:…' is not name:password (letters, digits, - _ . only)"
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
  done
}
sasl_enabled() { [[ -n "${KAFKA_SCRAM_USERS//[ ,]/}" ]]; }

# Sets KAFKA_PORT / KAFKA_CONTROLLER_PORT (/ KAFKA_SASL_PORT). $1=any: for a broker that is (or may
# be) running, the recorded ports win; $1=new: explicit ports, else the recorded ones if free, else
# free ones.
resolve_ports() {
  local recorded_port="" recorded_controller="" recorded_sasl=""
  if [[ -s "$PORTS_FILE" ]]; then read -r recorded_port recorded_controller recorded_sasl <"$PORTS_FILE" || true; fi
  if [[ "$1" == any ]]; then
    KAFKA_PORT="${KAFKA_PORT:-$recorded_port}"
    KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$recorded_controller}"
    KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-$recorded_sasl}"
    return 0
  fi
  if [[ -z "$KAFKA_PORT" && -n "$recorded_port" ]] && ! port_open "$recorded_port"; then KAFKA_PORT="$recorded_port"; fi
  if [[ -z "$KAFKA_CONTROLLER_PORT" && -n "$recorded_controller" && "$recorded_controller" != "$KAFKA_PORT" ]] \
    && ! port_open "$recorded_controller"; then KAFKA_CONTROLLER_PORT="$recorded_controller"; fi
  KAFKA_PORT="${KAFKA_PORT:-$(free_port)}"
  KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$(free_port "$KAFKA_PORT")}"
  [[ "$KAFKA_PORT" != "$KAFKA_CONTROLLER_PORT" ]] || die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ"
  if sasl_enabled; then
    if [[ -z "$KAFKA_SASL_PORT" && -n "$recorded_sasl" && "$recorded_sasl" != "$KAFKA_PORT" && "$recorded_sasl" != "$KAFKA_CONTROLLER_PORT" ]] \
      && ! port_open "$recorded_sasl"; then KAFKA_SASL_PORT="$recorded_sasl"; fi
    while [[ -z "$KAFKA_SASL_PORT" || "$KAFKA_SASL_PORT" == "$KAFKA_CONTROLLER_PORT" ]]; do KAFKA_SASL_PORT="$(free_port "$KAFKA_PORT")"; done
  else
    KAFKA_SASL_PORT=""
  fi
  mkdir -p "$KAFKA_DATA_DIR"
  echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT $KAFKA_SASL_PORT" >"$PORTS_FILE"
}

# Sends a Kafka ApiVersions v0 request (correlation id 7) and checks the
# response header + error code: proves a Kafka broker answers requests.
api_versions_ok() {
  local hex
  hex="$(timeout 3 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    # size=18 | api_key=18 (ApiVersions) | api_version=0 | correlation_id=7 | client_id="kafka.sh"
    printf "\x00\x00\x00\x12\x00\x12\x00\x00\x00\x00\x00\x07\x00\x08kafka.sh" >&3
    head -c 10 <&3 | od -An -tx1
  ' "$KAFKA_HOST" "$KAFKA_PORT" 2>/dev/null | tr -d ' \n')" || return 1
  # 4-byte size, correlation id 7, error_code 0
  [[ "$hex" =~ ^[0-9a-f]{8}000000070000$ ]]
}

print_address() {
  echo "KAFKA_BROKERS=$KAFKA_HOST:$KAFKA_PORT"
  if [[ -n "$KAFKA_SASL_PORT" ]]; then echo "KAFKA_SASL_BROKERS=$KAFKA_HOST:$KAFKA_SASL_PORT"; fi
  if [[ -n "$KAFKA_SASL_PORT" && -s "$TLS_DIR/ca.pem" ]] && grep -q '^ssl.keystore.location=' "$PROPS" 2>/dev/null; then echo "KAFKA_TLS_CA=$TLS_DIR/ca.pem"; fi
}


# Waits until the broker $1 logged "Kafka Server started" after byte $2 of
# server.log (skip the check with -1) and answers an ApiVersions request.
wait_ready() {
  local pid=$1 offset=$2 deadline=$((SECONDS + KAFKA_START_TIMEOUT)) size
  while ((SECONDS < deadline)); do
    alive "$pid" || return 2
    if ((offset >= 0)); then
      size="$(stat -c %s "$SERVER_LOG" 2>/dev/null || echo 0)"
      ((size >= offset)) || offset=0   # log rolled over
      if tail -c +"$((offset + 1))" "$SERVER_LOG" 2>/dev/null | grep -q 'Kafka Server started'; then
        offset=-1
      fi
    fi
    if ((offset < 0)) && api_versions_ok; then return 0; fi
    sleep 0.2
  done
  return 1
}

# Byte offsets of the logs when this start launched the JVM: failures show
# only what this run wrote.
LOG_OFFSET=0
CONSOLE_OFFSET=0

# Prints the last $3 lines written to file $1 after byte $2.
tail_since() {
  local size
  size="$(stat -c %s "$1" 2>/dev/null || echo 0)"
  (($2 <= size)) || set -- "$1" 0 "$3"
  tail -c +"$(($2 + 1))" "$1" 2>/dev/null | tail -n "$3"
}

fail_start() {
  local out
  out="$(tail_since "$SERVER_LOG" "$LOG_OFFSET" 40)"
  if [[ -n "$out" ]]; then log "---- last lines of $SERVER_LOG ----"; printf '%s\n' "$out" >&2; fi
  out="$(tail_since "$CONSOLE_LOG" "$CONSOLE_OFFSET" 20)"
  if [[ -n "${out//[[:space:]]/}" ]]; then log "---- JVM output ($CONSOLE_LOG) ----"; printf '%s\n' "$out" >&2; fi
  die "$*"
}

# ---------------------------------------------------------------- owner watchdog
# Field 22 of /proc/<pid>/stat: the start time, so a reused pid is not mistaken for the owner.
start_time() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }

# With KAFKA_OWNER_PID: a watchdog in its own session (a Ctrl-C of the owner's terminal does not
# reach it) that stops broker $1 once the owner is gone, however it ended (crash, kill -9, Ctrl-C).
start_watchdog() {
  [[ -n "$KAFKA_OWNER_PID" ]] || return 0
  local owner_start
  owner_start="$(start_time "$KAFKA_OWNER_PID")"
  [[ -n "$owner_start" ]] || die "KAFKA_OWNER_PID $KAFKA_OWNER_PID is not a running process"
  local previous
  previous="$(cat "$WATCHDOG_PID_FILE" 2>/dev/null || true)"   # one watchdog per broker: the latest owner's
  if [[ "$previous" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$previous/cmdline" 2>/dev/null | grep -q ' watch '; then
    kill "$previous" 2>/dev/null || true
  fi
  setsid bash "$SCRIPT_DIR/kafka.sh" watch "$KAFKA_OWNER_PID" "$owner_start" "$1" \
    </dev/null >>"$WATCHDOG_LOG" 2>&1 8>&- 9>&- &
  echo $! >"$WATCHDOG_PID_FILE"
}

cmd_watch() {
  local owner=$1 owner_start=$2 broker=$3
  log "watchdog: broker $broker follows owner $owner"
  while alive "$broker"; do
    if ! alive "$owner" || [[ "$(start_time "$owner")" != "$owner_start" ]]; then
      log "watchdog: owner $owner is gone; stopping broker $broker"
      KAFKA_OWNER_PID="" bash "$SCRIPT_DIR/kafka.sh" stop || true
      if [[ "$KAFKA_OWNER_CLEANUP" == 1 ]]; then rm -rf "$KAFKA_DATA_DIR"; fi
      return 0
    fi
    sleep 1
  done
}
