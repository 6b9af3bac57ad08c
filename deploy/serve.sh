#!/bin/sh
# The classroom server's start command. The Docker image runs exactly this
# (its CMD), and tests/deploy runs it outside a container with the same
# environment, so what is tested is what the image does.
#
# Settings (environment variables, with their defaults):
#   PEX_ADDRESS            0.0.0.0   interface to listen on
#   PEX_PORT               5006      port
#   PEX_NUM_PROCS          1         worker processes (0 = one per core); each
#                                    browser session lives in one process
#   PEX_REDIS_URL          (none)    redis://host:port/db shared by processes and
#                                    replicas, so that a class's students may be
#                                    served by another process than their teacher;
#                                    without it classes need PEX_NUM_PROCS=1
#   PEX_ALLOWED_ORIGINS    *         comma-separated host[:port] list that may
#                                    open the websocket; '*' suits a classroom
#                                    LAN reached by IP address; name the host
#                                    (e.g. demo.school.lan:5006) behind a proxy
#   PEX_SESSION_LIFETIME_MS 60000    how long a session with no open tab is
#                                    kept before its memory is freed
#   PEX_CHECK_SESSIONS_MS  10000     how often abandoned sessions are looked for
#   PEX_USE_XHEADERS       0         1 behind a reverse proxy (deploy/nginx.conf):
#                                    take the client's address and scheme from the
#                                    proxy's X-Real-IP/X-Forwarded-* headers; keep 0
#                                    when browsers connect directly (they could
#                                    forge those headers)
# -f: no file-name expansion, so PEX_ALLOWED_ORIGINS=* reaches panel as Bokeh's
# wildcard instead of as the names of the files here (which refused every
# browser's websocket; found by scripts/build-image-locally.sh).
set -euf

case "${PEX_USE_XHEADERS:-0}" in
    1) xheaders="--use-xheaders" ;;
    0) xheaders="" ;;
    *) echo "serve.sh: PEX_USE_XHEADERS must be 0 or 1" >&2; exit 2 ;;
esac

origins=""
old_ifs=$IFS
IFS=,
for origin in ${PEX_ALLOWED_ORIGINS:-*}; do
    origins="$origins --allow-websocket-origin $origin"
done
IFS=$old_ifs

cd "$(dirname "$0")/.."
# shellcheck disable=SC2086  # $origins: separate flags; $xheaders: one flag or none
exec panel serve app \
    --address "${PEX_ADDRESS:-0.0.0.0}" \
    --port "${PEX_PORT:-5006}" \
    --num-procs "${PEX_NUM_PROCS:-1}" \
    --unused-session-lifetime "${PEX_SESSION_LIFETIME_MS:-60000}" \
    --check-unused-sessions "${PEX_CHECK_SESSIONS_MS:-10000}" \
    --liveness \
    $origins $xheaders
