FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv/rogaine

COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install .

COPY alembic.ini ./
COPY migrations ./migrations

RUN useradd --system --uid 10001 --home /srv/rogaine rogaine \
    && mkdir -p /srv/rogaine/data && chown rogaine /srv/rogaine/data
USER rogaine

EXPOSE 8000
# Migrate (unless MIGRATE_AT_START=0: docker-compose.yml migrates once, before both hosts),
# then serve. X-Forwarded-For/-Proto are believed only from FORWARDED_ALLOW_IPS, the
# reverse proxy's address (default 127.0.0.1: nobody else; the app refuses '*').
# WORKERS worker processes (the connection budget counts them: README, "Deploying").
CMD ["sh", "-c", "if [ \"${MIGRATE_AT_START:-1}\" != 0 ]; then alembic upgrade head || exit 1; fi; exec uvicorn app.main:app --host 0.0.0.0 --port 8000 --proxy-headers --forwarded-allow-ips \"${FORWARDED_ALLOW_IPS:-127.0.0.1}\" --no-access-log --workers \"${WORKERS:-1}\""]
