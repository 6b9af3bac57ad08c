#!/usr/bin/env bash
# Build the repo's Dockerfile for real without a Docker engine, run the image,
# and check that it serves the explorer. Used by tests/deploy/test_image_build.py.
#
#   sudo scripts/build-image-locally.sh          # root is required (buildah, mmdebstrap)
#
# Needs (Debian bookworm): apt-get install -y buildah mmdebstrap
#
# Steps:
#   1. A stand-in for python:3.11-slim (which cannot be pulled here): Debian
#      bookworm made with mmdebstrap, Python 3.11 from Debian, and a virtual
#      environment at /usr/local so that `python`, `pip` and installed console
#      scripts live in /usr/local/bin as in the official image (and pip may
#      install without the PEP 668 "externally managed" refusal). The root
#      filesystem is cached as a tarball under $PEX_BASE_DIR and the image is
#      kept in buildah's storage; both are reused on later runs.
#   2. `buildah bud` of the unchanged Dockerfile, its FROM replaced by --from.
#      The host's CA bundle and a two-line pip.conf naming it are bind-mounted
#      into the RUN steps only (machines behind a TLS-intercepting proxy need
#      it to reach PyPI); nothing of the host ends up in the image.
#   3. The image is run with its own CMD, ENV, USER and WORKDIR (only PEX_PORT
#      changed to a free port) with chroot isolation and the host's network;
#      /liveness, the page /app, a websocket opened as a classroom browser
#      does (an Origin from the LAN, the page's session token), the image's
#      HEALTHCHECK command and the server's uid (10001) are checked; then the
#      server is stopped.
# Prints the timings and the image size; exits non-zero on any failure and
# removes the containers it made (the images are kept, under $PEX_IMAGE).
#
# Settings (environment variables, with their defaults):
#   PEX_BASE_DIR      /var/tmp/pex-base     cache of the base root filesystem
#   PEX_BASE_IMAGE    localhost/pex-python:3.11-slim-bookworm
#   PEX_IMAGE         localhost/positional-encoding-explorer:local
#   PEX_DEBIAN_MIRROR http://deb.debian.org/debian
#   PEX_REBUILD_BASE  0                     1 = make the base again
#   PEX_CA_BUNDLE     /etc/ssl/certs/ca-certificates.crt
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE_DIR=${PEX_BASE_DIR:-/var/tmp/pex-base}
BASE_IMAGE=${PEX_BASE_IMAGE:-localhost/pex-python:3.11-slim-bookworm}
IMAGE=${PEX_IMAGE:-localhost/positional-encoding-explorer:local}
MIRROR=${PEX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CA_BUNDLE=${PEX_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
# The stand-in's recipe; changing it changes the cache file's name.
BASE_PACKAGES=ca-certificates,netbase,tzdata,python3.11,python3.11-venv
BASE_RECIPE="bookworm minbase $BASE_PACKAGES venv-at-/usr/local v2"
BASE_TAR="$BASE_DIR/rootfs-$(printf '%s' "$BASE_RECIPE" | sha256sum | cut -c1-12).tar"
# Same run-time isolation as the build: no namespaces to set up, host network.
ISOLATION=(--isolation chroot)
NETWORK=(--network host)

log() { printf '[build-image-locally] %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }
now() { printf '%s' "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || die "run as root (buildah and mmdebstrap need it)"
for tool in buildah mmdebstrap curl ss python3; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install -y buildah mmdebstrap curl iproute2)"
done
[ -r "$CA_BUNDLE" ] || die "CA bundle $CA_BUNDLE not readable (set PEX_CA_BUNDLE)"

# --- cleanup: every container this script makes is removed on exit ----------
containers=()
server_pgid=""
tmp=$(mktemp -d)
cleanup() {
    local status=$?
    if [ -n "$server_pgid" ]; then
        kill -TERM -- "-$server_pgid" 2>/dev/null || true
        sleep 1
        kill -KILL -- "-$server_pgid" 2>/dev/null || true
    fi
    for ctr in "${containers[@]}"; do
        buildah rm "$ctr" >/dev/null 2>&1 || true
    done
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. base image ----------------------------------------------------------
t0=$(now)
base_note="reused"
old_base_id=""
current_recipe=$(buildah inspect --type image \
    --format '{{index .Docker.Config.Labels "pex.base.recipe"}}' "$BASE_IMAGE" 2>/dev/null || true)
if [ "${PEX_REBUILD_BASE:-0}" = 1 ]; then
    rm -f "$BASE_TAR"
    current_recipe=""
fi
if [ "$current_recipe" != "$BASE_RECIPE" ]; then
    base_note="built"
    # The base being replaced (if any): removed once nothing is built on it.
    old_base_id=$(buildah inspect --type image --format '{{.FromImageID}}' "$BASE_IMAGE" 2>/dev/null || true)
    if [ ! -s "$BASE_TAR" ]; then
        log "making the base root filesystem with mmdebstrap ($MIRROR)"
        mkdir -p "$BASE_DIR"
        rm -f "$BASE_DIR"/rootfs-*.tar "$BASE_DIR"/rootfs-*.tar.partial
        # Like debian:bookworm-slim: no manuals, docs (but copyrights) or
        # translations. The merged-usr hook avoids installing usrmerge (and perl).
        # force-unsafe-io: no fsync per file (the tree becomes a tarball anyway;
        # with fsync, dpkg is most of the time spent here).
        # The customize hook makes /usr/local a virtual environment: python,
        # python3, pip and pip3 in /usr/local/bin, packages in
        # /usr/local/lib/python3.11/site-packages, as in python:3.11-slim.
        mmdebstrap --quiet --variant=minbase --format=tar \
            --include="$BASE_PACKAGES" \
            --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
            --dpkgopt=force-unsafe-io \
            --dpkgopt='path-exclude=/usr/share/man/*' \
            --dpkgopt='path-exclude=/usr/share/info/*' \
            --dpkgopt='path-exclude=/usr/share/locale/*' \
            --dpkgopt='path-exclude=/usr/share/doc/*' \
            --dpkgopt='path-include=/usr/share/doc/*/copyright' \
            --customize-hook='chroot "$1" python3.11 -m venv /usr/local' \
            --customize-hook='chroot "$1" /usr/local/bin/python -c "import ssl, venv, ensurepip"' \
            --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
            bookworm "$BASE_TAR.partial" "$MIRROR" >"$tmp/mmdebstrap.log" 2>&1 \
            || { tail -n 40 "$tmp/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
        mv "$BASE_TAR.partial" "$BASE_TAR"
        log "root filesystem made in $(elapsed "$t0" "$(now)") s ($(du -h "$BASE_TAR" | cut -f1) tarball)"
    fi
    log "importing $BASE_TAR as $BASE_IMAGE"
    ctr=$(buildah from scratch)
    containers+=("$ctr")
    buildah add --quiet "$ctr" "$BASE_TAR" / >/dev/null
    # The configuration python:3.11-slim has (PATH first in /usr/local/bin,
    # a UTF-8 locale, python3 as the default command).
    buildah config \
        --env PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin \
        --env LANG=C.UTF-8 \
        --cmd python3 \
        --label "pex.base.recipe=$BASE_RECIPE" \
        "$ctr"
    buildah commit --quiet --rm --format docker "$ctr" "$BASE_IMAGE" >/dev/null
    containers=()
fi
t1=$(now)
log "base image $BASE_IMAGE $base_note in $(elapsed "$t0" "$t1") s"

# --- 2. the repo's Dockerfile -------------------------------------------------
old_image_id=$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE" 2>/dev/null || true)
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$tmp/pip.conf"
log "building $ROOT/Dockerfile FROM $BASE_IMAGE"
# --format docker keeps HEALTHCHECK (the OCI format has no place for it).
buildah bud --quiet "${ISOLATION[@]}" "${NETWORK[@]}" --format docker \
    --from "$BASE_IMAGE" \
    --volume "$CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro" \
    --volume "$tmp/pip.conf:/etc/pip.conf:ro" \
    --file "$ROOT/Dockerfile" --tag "$IMAGE" "$ROOT" >"$tmp/build.log" 2>&1 \
    || { cat "$tmp/build.log" >&2; die "buildah bud failed"; }
t2=$(now)
image_id=$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE")
if [ -n "$old_image_id" ] && [ "$old_image_id" != "$image_id" ]; then
    buildah rmi "$old_image_id" >/dev/null 2>&1 || true # the previous build, now untagged
fi
if [ -n "$old_base_id" ]; then
    buildah rmi "$old_base_id" >/dev/null 2>&1 || true
fi
log "image $IMAGE built in $(elapsed "$t1" "$t2") s"

# --- 3. run it with its CMD and ENV ------------------------------------------
mapfile -t cmd < <(buildah inspect --type image --format '{{range .Docker.Config.Cmd}}{{println .}}{{end}}' "$IMAGE")
mapfile -t health < <(buildah inspect --type image --format '{{with .Docker.Config.Healthcheck}}{{range .Test}}{{println .}}{{end}}{{end}}' "$IMAGE")
user=$(buildah inspect --type image --format '{{.Docker.Config.User}}' "$IMAGE")
[ "${#cmd[@]}" -gt 0 ] || die "the image has no CMD"
[ "${health[0]:-}" = CMD ] || die "the image has no HEALTHCHECK CMD (got: ${health[*]:-none})"
[ "$user" = 10001 ] || die "the image's USER is '$user', not 10001"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ctr=$(buildah from --quiet "$IMAGE")
containers+=("$ctr")
log "running ${cmd[*]} as the image's user, PEX_PORT=$port"
# A new session, so that the server and everything buildah started for it
# form one process group, stopped together.
setsid buildah run "${ISOLATION[@]}" "${NETWORK[@]}" --env "PEX_PORT=$port" "$ctr" -- "${cmd[@]}" \
    >"$tmp/server.log" 2>&1 </dev/null &
server_pgid=$!
t3=$(now)
deadline=$((SECONDS + 120))
until curl -fsS -o /dev/null "http://127.0.0.1:$port/liveness" 2>/dev/null; do
    if ! kill -0 "$server_pgid" 2>/dev/null || [ "$SECONDS" -gt "$deadline" ]; then
        cat "$tmp/server.log" >&2
        die "the server did not answer /liveness"
    fi
    sleep 0.2
done
t4=$(now)
log "/liveness answered 200 after $(elapsed "$t3" "$t4") s"

curl -fsS -o "$tmp/app.html" "http://127.0.0.1:$port/app" || die "GET /app failed"
grep -q "<title>Positional Encoding Explorer" "$tmp/app.html" || die "/app has not the app's title"
grep -q "static/js/bokeh.min.js" "$tmp/app.html" || die "/app has no bokeh script"
log "/app answered 200 with the app's title and bokeh.min.js"

# The page is only alive with its websocket: open one the way a classroom
# browser does (Origin: another machine on the LAN, the session token from the
# page), from inside the image, with its own Tornado, and wait for Bokeh's ACK.
if ! buildah run "${ISOLATION[@]}" "${NETWORK[@]}" --env "PEX_PORT=$port" "$ctr" -- python - \
    >"$tmp/websocket.log" 2>&1 <<'PY'
import asyncio
import json
import os
import re
import urllib.request

from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

server = "127.0.0.1:" + os.environ["PEX_PORT"]
origin = "http://192.168.1.20:5006"
html = urllib.request.urlopen(f"http://{server}/app", timeout=60).read().decode()
token = re.search(r'"token":"([^"]+)"', html).group(1)


async def main():
    request = HTTPRequest(f"ws://{server}/app/ws", headers={"Origin": origin}, request_timeout=60)
    socket = await websocket_connect(request, subprotocols=["bokeh", token])
    header = json.loads(await socket.read_message())
    socket.close()
    assert header["msgtype"] == "ACK", header
    print(f"a websocket with Origin {origin} was accepted ({header['msgtype']})")


asyncio.run(main())
PY
then
    cat "$tmp/websocket.log" >&2
    die "the websocket was refused (see PEX_ALLOWED_ORIGINS in deploy/serve.sh)"
fi
log "$(tail -n1 "$tmp/websocket.log")"

# The process listening on the port: it must be uid 10001 and live in the
# container's root filesystem (not the host's).
listener=$(ss -Hltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2)
[ -n "$listener" ] || die "no process found listening on port $port"
uid=$(awk '/^Uid:/ { print $2 }' "/proc/$listener/status")
[ "$uid" = 10001 ] || die "the server runs as uid $uid, not 10001"
[ "$(readlink "/proc/$listener/root")" != / ] || die "the server runs in the host's root, not the image's"
log "the server (pid $listener, $(tr '\0' ' ' <"/proc/$listener/cmdline" | cut -c1-60)...) runs as uid $uid"

# The image's own HEALTHCHECK command, run inside it.
buildah run "${ISOLATION[@]}" "${NETWORK[@]}" --env "PEX_PORT=$port" "$ctr" -- "${health[@]:1}" \
    || die "the image's HEALTHCHECK command failed"
log "the image's HEALTHCHECK command succeeded"
t5=$(now)

kill -TERM -- "-$server_pgid"
for _ in $(seq 50); do
    kill -0 -- "-$server_pgid" 2>/dev/null || break
    sleep 0.2
done
kill -0 -- "-$server_pgid" 2>/dev/null && die "the server did not stop on SIGTERM"
server_pgid=""
if grep -q Traceback "$tmp/server.log"; then
    cat "$tmp/server.log" >&2
    die "the server logged a traceback"
fi
t6=$(now)
log "server stopped in $(elapsed "$t5" "$t6") s"

size=$(buildah images --format '{{.Size}}' "$IMAGE" | head -n1)
base_size=$(buildah images --format '{{.Size}}' "$BASE_IMAGE" | head -n1)
printf 'base image (%s):    %6s s  %s\n' "$base_note" "$(elapsed "$t0" "$t1")" "$BASE_IMAGE"
printf 'image build:          %6s s  %s\n' "$(elapsed "$t1" "$t2")" "$IMAGE"
printf 'start to /liveness:   %6s s\n' "$(elapsed "$t3" "$t4")"
printf 'checks, stop:         %6s s, %s s\n' "$(elapsed "$t4" "$t5")" "$(elapsed "$t5" "$t6")"
printf 'image size:           %s (base %s)\n' "$size" "$base_size"
printf 'OK\n'
