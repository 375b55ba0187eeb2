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
# Migrate, then serve; proxy headers so BASE_URL-relative links and client IPs are right.
CMD ["sh", "-c", "alembic upgrade head && exec uvicorn app.main:app --host 0.0.0.0 --port 8000 --proxy-headers --forwarded-allow-ips='*' --no-access-log --workers ${WEB_CONCURRENCY:-2}"]
