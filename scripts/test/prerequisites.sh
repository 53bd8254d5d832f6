#!/usr/bin/env bash
# What `npm test` needs from the system, provisioned before the tests run (npm's `pretest`).
#
#   present                      -> nothing is done
#   missing, root with apt-get   -> installed (and Redis / PostgreSQL started)
#   missing otherwise            -> one message naming what is missing and the exact command
#                                   that installs it; exit 1 within seconds
#
# Needs, and which test tier uses it:
#   Chromium ($CHROMIUM_PATH, default /usr/bin/chromium)  the Config page in a real browser (e2e)
#   curl                                                  the copied curl example, run as is (e2e)
#   Java 17+ and Maven                                    the real Kafka test broker (int, e2e), unless KAFKA_BROKERS is set
#   Redis answering on 127.0.0.1:6379                     rate limits on the real Redis (int), unless REDIS_URL is set
#   PostgreSQL answering on 127.0.0.1:5432                read models in PostgreSQL (int), unless TEST_DATABASE_URL is set
#
# WTS_TEST_PREREQUISITES=auto (default) | check (never install: report and stop) | skip.
set -uo pipefail

MODE="${WTS_TEST_PREREQUISITES:-auto}"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

say() { printf '[prerequisites] %s\n' "$*" >&2; }

case "$MODE" in
  skip) say "skipped (WTS_TEST_PREREQUISITES=skip)"; exit 0 ;;
  auto | check) ;;
  *) say "WTS_TEST_PREREQUISITES must be auto, check or skip, got '$MODE'"; exit 2 ;;
esac

tcp_open() { timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null; }

redis_answers() { [[ "$(timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6379 && printf "PING\r\n" >&3 && head -c 5 <&3' 2>/dev/null)" == "+PONG" ]]; }

java_major() {
  local line
  line="$(java -version 2>&1 | head -n 1)" || return 1
  [[ "$line" =~ \"([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

kafka_jars_cached() { compgen -G "$REPO_ROOT/.kafka/libs/.fetched-kafka-*" >/dev/null; }

# ------------------------------------------------------------------ what is missing
need() { packages+=("$1"); reasons+=("$2"); }

detect() {
  packages=()   # Debian packages to install
  reasons=()    # one line each, for the message
  start_redis=false
  start_postgres=false
  if [[ ! -x "$CHROMIUM" ]]; then
    need chromium "Chromium at $CHROMIUM (the Config page tests run it headless; set CHROMIUM_PATH for another path)"
  fi
  command -v curl >/dev/null 2>&1 || need curl "curl (the Config page's copied curl example is run as is)"

  if [[ -z "${KAFKA_BROKERS:-}" ]]; then
    major="$(java_major 2>/dev/null || true)"
    if [[ -z "$major" || "$major" -lt 17 ]]; then
      need openjdk-17-jre-headless "Java 17 or newer (the Kafka test broker; found: ${major:-none})"
    fi
    if ! kafka_jars_cached && ! command -v mvn >/dev/null 2>&1; then
      need maven "Maven (fetches the Kafka broker's jars from Maven Central once)"
    fi
  fi

  if [[ -z "${REDIS_URL:-}" ]] && ! redis_answers; then
    start_redis=true
    command -v redis-server >/dev/null 2>&1 || need redis-server "Redis (rate limits on the real server)"
  fi

  if [[ -z "${TEST_DATABASE_URL:-}" ]] && ! tcp_open 127.0.0.1 5432; then
    start_postgres=true
    compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || need postgresql "PostgreSQL (read models on the real server)"
  fi
}

nothing_to_do() { [[ ${#packages[@]} -eq 0 && $start_redis == false && $start_postgres == false ]]; }

detect
nothing_to_do && exit 0

# ------------------------------------------------------------------ cannot provision: say so
can_provision=false
[[ "$MODE" == auto && "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1 && can_provision=true

if [[ $can_provision == false ]]; then
  {
    echo "npm test cannot run: this machine lacks"
    for reason in "${reasons[@]}"; do echo "  - $reason"; done
    [[ $start_redis == true ]] && echo "  - Redis answering on 127.0.0.1:6379 (rate limits on the real server; or set REDIS_URL)"
    [[ $start_postgres == true ]] && echo "  - PostgreSQL answering on 127.0.0.1:5432 (read models on the real server; or set TEST_DATABASE_URL)"
    echo "Install and start with:"
    [[ ${#packages[@]} -gt 0 ]] && echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages[*]}"
    [[ $start_redis == true ]] && echo "  sudo redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no"
    [[ $start_postgres == true ]] && echo "  sudo pg_ctlcluster \$(ls /etc/postgresql) main start"
    echo "(as root, npm test does this itself; WTS_TEST_PREREQUISITES=skip runs the tests anyway, and the tiers that need them fail)"
  } >&2
  exit 1
fi

# ------------------------------------------------------------------ provision
# One provisioning at a time on this machine (two checkouts testing at once share apt and the
# services); whoever waited looks again, since the other may have done it all.
exec 7>/tmp/wts-test-prerequisites.lock
flock -w 900 7 || { say "ERROR: timed out waiting for another checkout's provisioning (/tmp/wts-test-prerequisites.lock)"; exit 1; }
detect
nothing_to_do && exit 0

if [[ ${#packages[@]} -gt 0 ]]; then
  say "installing ${packages[*]} with apt-get (once) ..."
  export DEBIAN_FRONTEND=noninteractive
  t0=$SECONDS
  apt_log="$(mktemp -t wts-prerequisites-apt.XXXXXX.log)"
  if ! apt-get update -qq >"$apt_log" 2>&1 \
    || ! apt-get install -y -qq --no-install-recommends "${packages[@]}" >>"$apt_log" 2>&1; then
    tail -n 20 "$apt_log" >&2
    say "ERROR: apt-get install ${packages[*]} failed (full log: $apt_log)"
    exit 1
  fi
  rm -f "$apt_log"
  say "installed in $((SECONDS - t0)) s"
fi

wait_for() {  # $1: what, $2: check command
  local deadline=$((SECONDS + 30))
  until eval "$2"; do
    ((SECONDS < deadline)) || { say "ERROR: $1 did not come up within 30 s"; return 1; }
    sleep 0.2
  done
}

if [[ $start_redis == true ]]; then
  say "starting Redis on 127.0.0.1:6379"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null
  wait_for Redis redis_answers || exit 1
fi

if [[ $start_postgres == true ]]; then
  say "starting PostgreSQL on 127.0.0.1:5432"
  version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
  [[ -n "$version" ]] || { say "ERROR: no PostgreSQL cluster under /etc/postgresql"; exit 1; }
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || pg_ctlcluster "$version" main start >/dev/null 2>&1
  wait_for PostgreSQL "tcp_open 127.0.0.1 5432" || exit 1
fi
exit 0
