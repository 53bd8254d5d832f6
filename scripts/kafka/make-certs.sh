#!/bin/sh
# A private certificate authority and a broker key pair it signs, with keytool alone (any JRE has
# it: the apache/kafka image, the test machine). Used by kafka.sh (KAFKA_TLS=1) and by compose's
# kafka-certs service. Idempotent: an existing broker keystore is kept.
#
#   make-certs.sh DIR PASSWORD [SAN]     SAN: keytool's list, default dns:kafka,dns:localhost,ip:127.0.0.1
#
# Writes DIR/ca.pem (what clients trust: KAFKA_SSL_CA_FILE), DIR/broker.p12 (the broker's
# PKCS12 keystore, PASSWORD for the store and the key); DIR/ca.p12 holds the CA's private key.
# Files are private to the caller (umask 077) but ca.pem, and broker.p12 with KEYSTORE_READABLE=1.
set -eu
dir=$1
password=$2
san=${3:-dns:kafka,dns:localhost,ip:127.0.0.1}
[ ${#password} -ge 6 ] || { echo "make-certs: the keystore password needs 6 characters or more" >&2; exit 2; }
[ -s "$dir/broker.p12" ] && [ -s "$dir/ca.pem" ] && exit 0
mkdir -p "$dir"
umask 077
work=$(mktemp -d "$dir/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
# keytool lives for a second: the client compiler alone and one GC thread start it with less CPU.
kt() { keytool -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC "$@" -storepass "$password" >/dev/null 2>"$work/keytool.err" || { cat "$work/keytool.err" >&2; exit 1; }; }
kt -genkeypair -alias ca -keyalg RSA -keysize 2048 -validity 3650 -dname "CN=webhook-trigger-service Kafka CA" \
  -ext bc:c -keystore "$work/ca.p12" -storetype PKCS12
kt -exportcert -rfc -alias ca -keystore "$work/ca.p12" -file "$work/ca.pem"
kt -genkeypair -alias broker -keyalg RSA -keysize 2048 -validity 825 -dname "CN=kafka" \
  -keystore "$work/broker.p12" -storetype PKCS12
kt -certreq -alias broker -keystore "$work/broker.p12" -file "$work/broker.csr"
kt -gencert -alias ca -keystore "$work/ca.p12" -infile "$work/broker.csr" -outfile "$work/broker.pem" -rfc -validity 825 \
  -ext "SAN=$san" -ext "EKU=serverAuth" -ext "KU=digitalSignature,keyEncipherment"
kt -importcert -noprompt -alias ca -file "$work/ca.pem" -keystore "$work/broker.p12"
kt -importcert -alias broker -file "$work/broker.pem" -keystore "$work/broker.p12"
# KEYSTORE_READABLE=1: readable by other users (a container whose broker runs as another user);
# the keystore stays encrypted with PASSWORD.
if [ "${KEYSTORE_READABLE:-0}" = 1 ]; then chmod 644 "$work/broker.p12"; fi
mv "$work/ca.p12" "$work/broker.p12" "$dir/"
chmod 644 "$work/ca.pem"
mv "$work/ca.pem" "$dir/ca.pem"
echo "make-certs: $dir/ca.pem, $dir/broker.p12 ($san)"
