#!/usr/bin/env python3
"""Two member engines for scripts/container_check.sh, on one HTTP port.

GET /good/search?q=...   a SearXNG-format JSON answer with one result
GET /blocky/search?q=... HTTP 429 (what a rate-limited engine answers)
GET /counts              {"good": N, "blocky": M}: the requests each got

    engine.py HOST PORT      prints "ready" once it listens; runs until killed
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

counts = {"good": 0, "blocky": 0}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def send(self, status, body, kind="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        parts = urlsplit(self.path)
        name = parts.path.strip("/").split("/")[0]
        if parts.path == "/counts":
            with lock:
                return self.send(200, json.dumps(counts))
        if name not in counts:
            return self.send(404, "{}")
        with lock:
            counts[name] += 1
        if name == "blocky":
            return self.send(429, "slow down", "text/plain")
        query = parse_qs(parts.query).get("q", [""])[0]
        result = {
            "url": "https://example.org/good",
            "title": "Good answer",
            "content": f"An answer about {query}.",
        }
        self.send(200, json.dumps({"results": [result], "suggestions": []}))

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
print("ready", flush=True)
server.serve_forever()
