# The classroom image: the explorer served by deploy/serve.sh on port 5006.
# Settings are environment variables; deploy/serve.sh lists them.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PEX_ADDRESS=0.0.0.0 \
    PEX_PORT=5006 \
    PEX_NUM_PROCS=1 \
    PEX_ALLOWED_ORIGINS=* \
    PEX_SESSION_LIFETIME_MS=60000 \
    PEX_CHECK_SESSIONS_MS=10000

WORKDIR /srv/explorer
# Dependencies first, from the pinned constraints, so code edits reuse this layer.
COPY constraints.txt pyproject.toml README.md ./
COPY positional_core ./positional_core
COPY app ./app
COPY deploy/serve.sh ./deploy/serve.sh
# Compiled at install (no --no-compile): otherwise every start recompiles bokeh,
# holoviews and panel, and the first page after a restart took 21 s, not 6 s.
RUN pip install -c constraints.txt . \
    && rm -rf build ./*.egg-info \
    && useradd --create-home --uid 10001 explorer

USER 10001
EXPOSE 5006
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/liveness' % os.environ.get('PEX_PORT', '5006'), timeout=4)"]
CMD ["./deploy/serve.sh"]
