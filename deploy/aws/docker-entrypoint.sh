#!/bin/sh
# The image's entrypoint: makes the certificate `indelible serve` presents
# to the load balancer, then runs the command (the task definition's:
# `indelible serve ... --tls-cert DIR/cert.pem --tls-key DIR/key.pem`).
#
# The load balancer ends the clients' TLS with the ACM certificate and opens
# its own TLS connection to the task, without verifying the task's
# certificate: a self-signed one, made at each start, keeps the hop inside
# the VPC encrypted and the server on its secure default (TLS beyond
# loopback, docs/SECURITY.md). A certificate already in DIR is kept.
set -eu
dir=${INDELIBLE_TLS_DIR:-/run/indelible/tls}
if [ ! -s "$dir/cert.pem" ] || [ ! -s "$dir/key.pem" ]; then
  mkdir -p "$dir"
  umask 077
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 397 \
    -subj "/CN=indelible" -addext "subjectAltName=DNS:indelible,IP:127.0.0.1" \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
fi
exec "$@"
