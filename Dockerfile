# The classroom image: the explorer served by `panel serve app` on port 5006.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/explorer
COPY constraints.txt pyproject.toml README.md ./
COPY positional_core ./positional_core
COPY app ./app
RUN pip install -c constraints.txt . \
    && useradd --create-home --uid 10001 explorer

USER explorer
EXPOSE 5006
CMD ["panel", "serve", "app", "--address", "0.0.0.0", "--port", "5006", "--allow-websocket-origin", "*"]
