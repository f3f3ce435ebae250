# Clinical Workflow Service: one image for the web server and the workers.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    INSTANCE_PATH=/app/instance

WORKDIR /app
RUN useradd --create-home --uid 10001 cws

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY --chown=root:root . .
RUN mkdir -p /app/instance && chown cws:cws /app/instance
USER cws

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD python -c "import sys, urllib.request as u; sys.exit(0 if u.urlopen('http://127.0.0.1:8000/api/voice/webhook/health', timeout=4).status == 200 else 1)"

# No access log: gunicorn's would print query strings, which may carry patient identifiers;
# the app logs every request itself (path, status, duration, request id).
ENV HOST=0.0.0.0 PORT=8000
CMD ["gunicorn", "-c", "gunicorn.conf.py", "app:create_app()"]
