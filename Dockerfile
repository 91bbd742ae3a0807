# Paperscope's image: one image for every process of the Procfile (release, web, worker, beat);
# docker-compose.yml picks the command. Built from the pinned dependencies, without the dev extras.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PAPERSCOPE_DATA_DIR=/app/var

WORKDIR /app
COPY pyproject.toml constraints.txt README.md ./
COPY config ./config
COPY papers ./papers
COPY topics ./topics
COPY accounts ./accounts
RUN pip install -c constraints.txt . && pip uninstall -y paperscope
COPY . .
# Static files are part of the image (whitenoise serves them, hashed and compressed).
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --system --home-dir /app paperscope \
    && mkdir -p /app/var && chown -R paperscope /app/var
USER paperscope
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi"]
