"""gunicorn's access log as one JSON object per request, escaped properly whatever the client
sent (a format string with quotes around %(a)s breaks on a User-Agent that contains a quote)."""

from __future__ import annotations

import json
import traceback

from gunicorn.glogging import Logger


class JsonAccessLogger(Logger):
    def access(self, resp, req, environ, request_time):
        if not self.access_log_enabled:
            return
        atoms = self.atoms(resp, req, environ, request_time)
        record = {
            "time": self.now().strip("[]"),
            "logger": "gunicorn.access",
            "remote": atoms["h"],
            "method": atoms["m"],
            "path": atoms["U"],
            "query": atoms["q"],
            "status": resp.status_code,
            "bytes": atoms["B"],
            "duration_ms": round(request_time.total_seconds() * 1000, 1),
            "user_agent": atoms["a"],
        }
        try:
            self.access_log.info(json.dumps(record))
        except Exception:
            self.error(traceback.format_exc())
