#!/usr/bin/env python3
"""A fixed number of requests to a running `metasift serve`, for instruction
counts (scripts/callgrind_server.sh): unlike wrk, which runs for a time,
this sends exactly N requests, so the server's instruction total divided by
N is the cost of one request.

    scripts/requests.py BASE N cached|uncached [CONNS] [PREFIX]

cached: the same JSON search N times; uncached: a new query per request.
CONNS keep-alive connections (default 1) share the N requests, each sending
its next request when the previous answer is read. Exits non-zero on any
answer that is not 200.
"""

import http.client
import sys
import threading
import urllib.parse


def main():
    base, n, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    conns = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    prefix = sys.argv[5] if len(sys.argv) > 5 else "cg"
    if kind not in ("cached", "uncached"):
        sys.exit("kind must be cached or uncached")
    url = urllib.parse.urlsplit(base)
    lock = threading.Lock()
    state = {"next": 0, "bad": []}

    def take():
        with lock:
            i = state["next"]
            if i >= n:
                return None
            state["next"] = i + 1
            return i

    def worker(w):
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
        while (i := take()) is not None:
            if kind == "cached":
                q = "javascript+tutorial"
            else:
                q = f"{prefix}+{w}+{i}"
            conn.request("GET", f"/search?format=json&q={q}")
            r = conn.getresponse()
            r.read()
            if r.status != 200:
                with lock:
                    state["bad"].append((i, r.status))
        conn.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if state["bad"]:
        sys.exit(f"{len(state['bad'])} answers were not 200: {state['bad'][:5]}")


if __name__ == "__main__":
    main()
