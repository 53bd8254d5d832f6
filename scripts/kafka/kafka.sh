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
TLS_DIR="$KAFKA_DATA_DIR/tls"               # KAFKA_TLS=1: ca.pem, broker.p12, password
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

gen_cluster_id() {  # 16 random bytes, base64url without padding, like kafka-storage random-uuid
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && { echo "$id"; return; }
  done
}

write_config() {
  mkdir -p "$LOG_DIRS" "$APP_LOG_DIR"
  cat >"$PROPS" <<EOF
# Generated by scripts/kafka/kafka.sh on each start: edits here are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$LOG_DIRS

num.partitions=4
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
delete.topic.enable=true

# After a crash (kill -9) the restarted controller keeps the old broker
# registration until the session times out (default 9 s, plus retries):
# shorter here so chaos tests get the broker back in a few seconds.
broker.heartbeat.interval.ms=500
broker.session.timeout.ms=4000

num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=24
log.segment.bytes=67108864
EOF
  if sasl_enabled; then write_sasl_config; fi
  if [[ -n "$KAFKA_EXTRA_CONFIG" ]]; then
    printf '\n# KAFKA_EXTRA_CONFIG\n%s\n' "$KAFKA_EXTRA_CONFIG" >>"$PROPS"
  fi

  cat >"$LOG4J" <<EOF
# Generated by scripts/kafka/kafka.sh: broker logs go to files only, never stdout.
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=$SERVER_LOG
log4j.appender.file.MaxFileSize=50MB
log4j.appender.file.MaxBackupIndex=2
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.network.RequestChannel\$=WARN
log4j.logger.kafka.authorizer.logger=WARN
log4j.logger.state.change.logger=INFO
EOF
}

# A SASL/SCRAM listener (named SASL) next to PLAINTEXT, and ACLs enforced; with KAFKA_TLS=1 it is
# SASL_SSL. PLAINTEXT and the controller listener stay unauthenticated (principal ANONYMOUS, a super
# user): the test tooling's door, on 127.0.0.1 only.
write_sasl_config() {
  local jaas='org.apache.kafka.common.security.scram.ScramLoginModule required;' protocol=SASL_PLAINTEXT
  if [[ "$KAFKA_TLS" == 1 ]]; then protocol=SASL_SSL; fi
  sed -i \
    -e "s|^listeners=.*|listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT,SASL://$KAFKA_HOST:$KAFKA_SASL_PORT|" \
    -e "s|^advertised.listeners=.*|advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,SASL://$KAFKA_HOST:$KAFKA_SASL_PORT|" \
    -e "s|^listener.security.protocol.map=.*|listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL:$protocol|" \
    "$PROPS"
  cat >>"$PROPS" <<EOF

# KAFKA_SCRAM_USERS: SASL/SCRAM clients on $KAFKA_SASL_PORT ($protocol), authorised by ACLs.
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256
listener.name.sasl.scram-sha-512.sasl.jaas.config=$jaas
listener.name.sasl.scram-sha-256.sasl.jaas.config=$jaas
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:ANONYMOUS
EOF
  if [[ "$KAFKA_TLS" == 1 ]]; then
    [[ -s "$TLS_DIR/password" ]] || { mkdir -p "$TLS_DIR"; head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$TLS_DIR/password"; }
    local password
    password="$(cat "$TLS_DIR/password")"
    PATH="${JAVA_HOME:+$JAVA_HOME/bin:}$PATH" sh "$SCRIPT_DIR/make-certs.sh" "$TLS_DIR" "$password" "dns:localhost,ip:$KAFKA_HOST" >&2 \
      || die "make-certs.sh failed"
    cat >>"$PROPS" <<EOF
ssl.keystore.location=$TLS_DIR/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$password
ssl.key.password=$password
EOF
  fi
}

users_digest() { printf '%s' "$KAFKA_SCRAM_USERS" | sha256sum | cut -d' ' -f1; }

# Users the metadata does not hold yet (a data dir formatted with other KAFKA_SCRAM_USERS): added
# through the PLAINTEXT listener once the broker answers.
add_scram_users() {
  sasl_enabled || return 0
  [[ -f "$SCRAM_MARKER" && "$(cat "$SCRAM_MARKER")" == "$(users_digest)" ]] && return 0
  local name password mechanism
  write_tools_log4j
  while read -r name password; do
    # One mechanism per request: the broker refuses two credentials of one user in a request.
    for mechanism in SCRAM-SHA-512 SCRAM-SHA-256; do
      "$JAVA" -Xmx256m -Djava.net.preferIPv4Stack=true -Dlog4j.configuration="file:$TOOLS_LOG4J" -cp "$LIBS_DIR/*" \
        kafka.admin.ConfigCommand --bootstrap-server "$KAFKA_HOST:$KAFKA_PORT" --alter --entity-type users --entity-name "$name" \
        --add-config "$mechanism=[password=$password]" >>"$APP_LOG_DIR/scram.log" 2>&1 9>&- 8>&- \
        || die "could not add SCRAM user $name (see $APP_LOG_DIR/scram.log)"
    done
  done < <(scram_users)
  users_digest >"$SCRAM_MARKER"
  log "SCRAM users added: $(scram_users | cut -d' ' -f1 | tr '\n' ' ')"
}

write_tools_log4j() {
  [[ -f "$TOOLS_LOG4J" ]] && return 0
  mkdir -p "$KAFKA_HOME_DIR"
  cat >"$TOOLS_LOG4J" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

format_storage() {
  [[ -f "$LOG_DIRS/meta.properties" ]] && return 0
  local id
  write_tools_log4j
  [[ -s "$CLUSTER_ID_FILE" ]] || gen_cluster_id >"$CLUSTER_ID_FILE"
  id="$(cat "$CLUSTER_ID_FILE")"
  log "formatting KRaft storage in $LOG_DIRS (cluster id $id) ..."
  local scram=() name password
  if sasl_enabled; then
    while read -r name password; do
      scram+=(--add-scram "SCRAM-SHA-512=[name=$name,password=$password]" --add-scram "SCRAM-SHA-256=[name=$name,password=$password]")
    done < <(scram_users)
  fi
  if ! "$JAVA" -Xmx256m -Djava.net.preferIPv4Stack=true -Dlog4j.configuration="file:$TOOLS_LOG4J" \
        -cp "$LIBS_DIR/*" kafka.tools.StorageTool format -t "$id" -c "$PROPS" --ignore-formatted "${scram[@]}" \
        >"$APP_LOG_DIR/format.log" 2>&1 9>&- 8>&-; then
    cat "$APP_LOG_DIR/format.log" >&2
    die "kafka.tools.StorageTool format failed"
  fi
  if sasl_enabled; then users_digest >"$SCRAM_MARKER"; fi
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
  setsid bash "${BASH_SOURCE[0]}" watch "$KAFKA_OWNER_PID" "$owner_start" "$1" \
    </dev/null >>"$WATCHDOG_LOG" 2>&1 8>&- 9>&- &
  echo $! >"$WATCHDOG_PID_FILE"
}

cmd_watch() {
  local owner=$1 owner_start=$2 broker=$3
  log "watchdog: broker $broker follows owner $owner"
  while alive "$broker"; do
    if ! alive "$owner" || [[ "$(start_time "$owner")" != "$owner_start" ]]; then
      log "watchdog: owner $owner is gone; stopping broker $broker"
      KAFKA_OWNER_PID="" bash "${BASH_SOURCE[0]}" stop || true
      if [[ "$KAFKA_OWNER_CLEANUP" == 1 ]]; then rm -rf "$KAFKA_DATA_DIR"; fi
      return 0
    fi
    sleep 1
  done
}

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
    exec "$JAVA" -Xmx256m -Djava.net.preferIPv4Stack=true -Dlog4j.configuration="file:$TOOLS_LOG4J" \
      -cp "$LIBS_DIR/*" "$@"
    ;;
  -h | --help | help) usage 0 ;;
  *) usage ;;
esac
