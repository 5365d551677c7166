#!/usr/bin/env python3
"""http_flood.py - hostile HTTP clients for tests/cli/daemon_http.t.

  http_flood.py slow PORT N HOLD_S TOKEN
      Open N connections that each send a request line and then one more
      header line every second, never ending their headers, for HOLD_S
      seconds.  Meanwhile a probe client makes 50 requests (GET /v1/cluster
      with TOKEN, a new connection each, 50 ms apart, 10 s timeout each).
      Prints one JSON line: opened, probes, answered (status 200), p50/p99/
      max latency in ms, and closed_by_server (slow connections the daemon
      had closed by the end).
  http_flood.py bodies PORT K ROUNDS
      ROUNDS rounds of K concurrent POST /v1/jobs declaring a 1 MiB body,
      with no Authorization header: each writes all of the body but its
      last byte without waiting for an answer, holds the connection 2 s,
      then reads the answer.  Prints one JSON line: sent, status counts
      ("reset": the server closed the connection under the unread body).
  http_flood.py submit PORT N PREFIX GPUS TOKEN
      Submit jobs PREFIX0 .. PREFIX(N-1) of GPUS GPUs running `sleep 600`
      from 16 threads (keep-alive connections).  Prints the number of 201s.
  http_flood.py pages PORT CLIENTS LIMIT TOKEN
      CLIENTS threads at once each page through GET /v1/jobs?limit=LIMIT.
      Prints one JSON line: per client the jobs and pages it got, and
      whether its ids were all distinct.
  http_flood.py perip PORT N TOKEN
      Hold N idle connections from 127.0.0.1, then make one request from
      127.0.0.1 and one from 127.0.0.2 (both loopback).  Prints one JSON
      line: opened, and the status of each request (0 = no answer).
  http_flood.py raw PORT
      Send stdin as one request; print the answer's status code, its Allow
      and Content-Type headers and its body, one per line.
"""
import json
import selectors
import socket
import sys
import threading
import time


def auth_headers(token, h):
    """h plus the bearer token; "none" = no token (a --trust-loopback daemon)."""
    if token != "none":
        h["Authorization"] = "Bearer " + token
    return h


def probe(port, token, out):
    for _ in range(50):
        t0 = time.monotonic()
        status = 0
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(("GET /v1/cluster HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                       "Authorization: Bearer %s\r\nConnection: close\r\n\r\n"
                       % (port, token)).encode())
            data = b""
            while b"\r\n" not in data:
                c = s.recv(4096)
                if not c:
                    break
                data += c
            s.close()
            if data.startswith(b"HTTP/1.1 "):
                status = int(data[9:12])
        except OSError:
            status = -1
        out.append((status, (time.monotonic() - t0) * 1000))
        time.sleep(0.05)


def slow(port, n, hold, token):
    sel = selectors.DefaultSelector()
    socks = []
    for i in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /v1/cluster HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, i)
            socks.append(s)
        except OSError:
            pass
    opened = len(socks)
    results = []
    th = threading.Thread(target=probe, args=(port, token, results))
    th.start()
    closed = set()
    end = time.monotonic() + hold
    line = 0
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=1.0):
            try:
                if not key.fileobj.recv(4096):
                    closed.add(key.data)
                    sel.unregister(key.fileobj)
            except OSError:
                closed.add(key.data)
                sel.unregister(key.fileobj)
        line += 1
        for i, s in enumerate(socks):
            if i in closed:
                continue
            try:
                s.send(b"X-Slow-%d: %d\r\n" % (line, i))
            except OSError:
                pass
    th.join()
    for s in socks:
        s.close()
    lat = sorted(ms for st, ms in results)
    ok = sum(1 for st, _ in results if st == 200)

    def q(p):
        return round(lat[min(len(lat) - 1, int(p * len(lat)))], 1) if lat else None

    print(json.dumps({"opened": opened, "probes": len(results), "answered": ok,
                      "p50_ms": q(0.5), "p99_ms": q(0.99), "max_ms": q(1.0),
                      "closed_by_server": len(closed)}))


def one_body(port, out, lock):
    body = b"x" * (1 << 20)
    head = ("POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\nConnection: close\r\n\r\n" % (port, len(body))).encode()
    status = "reset"
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(head + body[:-1])  # all but the last byte: the server
        except OSError:                  # would hold it, waiting for the rest
            pass
        time.sleep(2)
        data = s.recv(4096)
        if data.startswith(b"HTTP/1.1 "):
            status = data[9:12].decode()
        s.close()
    except OSError:
        pass
    with lock:
        out[status] = out.get(status, 0) + 1


def bodies(port, k, rounds):
    out, lock = {}, threading.Lock()
    for _ in range(rounds):
        ths = [threading.Thread(target=one_body, args=(port, out, lock)) for _ in range(k)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
    print(json.dumps({"sent": k * rounds, "status": out}))


def raw(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(sys.stdin.buffer.read())
    data = b""
    while True:
        try:
            c = s.recv(65536)
        except OSError:
            break
        if not c:
            break
        data += c
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdr = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    print(lines[0][9:12] if lines[0].startswith("HTTP/1.1 ") else "none")
    print(hdr.get("allow", "-"))
    print(hdr.get("content-type", "-"))
    print(body.decode("utf-8", "replace"))


def submit(port, n, prefix, gpus, token, cancel=False):
    """Submit n jobs; with cancel, cancel each at once (ended jobs in the
    journal: a pending job's cancel ends it) and count the cancelled."""
    import http.client
    count, lock = [0], threading.Lock()

    def worker(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for i in range(k, n, 16):
            body = json.dumps({"id": "%s%d" % (prefix, i), "gpus": gpus,
                               "command": ["sleep", "600"]})
            c.request("POST", "/v1/jobs", body, auth_headers(token, {"Content-Type":
                                                                     "application/json"}))
            r = c.getresponse()
            r.read()
            if r.status == 201 and cancel:
                c.request("POST", "/v1/jobs/%s%d/cancel" % (prefix, i), "",
                          auth_headers(token, {"Content-Type": "application/json"}))
                r = c.getresponse()
                r.read()
                if r.status != 200:
                    continue
            if r.status in (200, 201):
                with lock:
                    count[0] += 1
        c.close()
    ths = [threading.Thread(target=worker, args=(k,)) for k in range(16)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    print(count[0])


def pages(port, clients, limit, token):
    import http.client
    out = [None] * clients

    def worker(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        ids, npages, after = [], 0, None
        while True:
            path = "/v1/jobs?limit=%d" % limit + ("&after=" + after if after else "")
            c.request("GET", path, headers=auth_headers(token, {}))
            r = c.getresponse()
            a = json.loads(r.read())
            npages += 1
            ids += [j["id"] for j in a["jobs"]]
            after = a.get("next")
            if not after:
                break
        c.close()
        out[k] = {"jobs": len(ids), "pages": npages, "distinct": len(set(ids)) == len(ids)}
    ths = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    print(json.dumps(out))


def one_get(port, src, token):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
        s.sendall(("GET /v1/cluster HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   "Authorization: Bearer %s\r\nConnection: close\r\n\r\n"
                   % (port, token)).encode())
        data = s.recv(4096)
        s.close()
        return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0
    except OSError:
        return 0


def perip(port, n, token):
    socks = []
    for _ in range(n):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    time.sleep(0.5)
    same = one_get(port, "127.0.0.1", token)
    other = one_get(port, "127.0.0.2", token)
    for s in socks:
        s.close()
    print(json.dumps({"opened": len(socks), "same_ip": same, "other_ip": other}))


def main():
    if sys.argv[1] == "raw":
        raw(int(sys.argv[2]))
    elif sys.argv[1] == "perip":
        perip(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] == "submit":
        submit(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6],
               len(sys.argv) > 7 and sys.argv[7] == "cancel")
    elif sys.argv[1] == "pages":
        pages(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "slow":
        slow(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    else:
        bodies(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))


if __name__ == "__main__":
    main()
