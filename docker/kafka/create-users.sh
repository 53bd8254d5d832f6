#!/bin/sh
# Adds (or updates) the SCRAM-SHA-512 users of docker-compose.yml. Runs once per `up` in the
# `kafka-users` container, which shares the broker's network namespace: it reaches the broker's
# loopback-only SETUP listener (127.0.0.1:9094), the only unauthenticated one, which nothing on the
# compose network can reach. Passwords come from the environment and are never printed.
set -eu
for user in ingress dispatcher runs-reader operator; do
  var="KAFKA_$(echo "$user" | tr 'a-z-' 'A-Z_')_PASSWORD"
  password="$(printenv "$var" || true)"
  [ -n "$password" ] || { echo "create-users: $var is empty" >&2; exit 1; }
  case "$password" in *[!A-Za-z0-9._~+/-]*) echo "create-users: $var may hold only letters, digits and . _ ~ + / -" >&2; exit 1 ;; esac
  /opt/kafka/bin/kafka-configs.sh --bootstrap-server 127.0.0.1:9094 --alter --entity-type users \
    --entity-name "$user" --add-config "SCRAM-SHA-512=[iterations=8192,password=$password]" >/dev/null
  echo "create-users: $user"
done
