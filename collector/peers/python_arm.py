"""Arm A of the original lab, run by the Handshake Lab collector (embedded in its binary).

Reads a JSON plan on stdin, measures with Python's `ssl` module on loopback, and writes
JSON on stdout: one record per timed connection, and per arm how many records each
interleaved round produced, so the collector computes every statistic itself. Arms: plain TCP connect; per certificate, TLS 1.3 and TLS 1.2 full
handshakes; and resumed handshakes done right (one server SSLContext for every
connection; the client takes `sock.session` only after reading application data, so a
TLS 1.3 ticket has arrived). `session_reused` is reported per connection by both ends.

Timed window, in the order real clients do it (as for every stack the collector measures):
from before the socket is created (socket(), TCP_NODELAY, SO_LINGER {on, 0}, timeout);
connect(); then `wrap_socket`, which builds the ClientHello and returns with the handshake
complete. It excludes the server's 1-byte app record, read after the timer, and close.
The client closes before it waits for the server's report, and the server reports only
after the client's close, so the next connection never overlaps this one.
"""

import json
import os
import queue
import random
import socket
import ssl
import struct
import sys
import threading
import time

PLAN = json.load(sys.stdin)
TIMEOUT = PLAN["io_timeout_s"]
LINGER_ZERO = struct.pack("ii", 1, 0)
VERSIONS = {"tls1.3": ssl.TLSVersion.TLSv1_3, "tls1.2": ssl.TLSVersion.TLSv1_2}


def drain(sock):
    try:
        while sock.recv(512):
            pass
    except (OSError, ssl.SSLError):
        pass


class Server(threading.Thread):
    """Accepts one connection at a time on 127.0.0.1; `ctx` is None for plain TCP.
    One context serves every connection, so its session cache and ticket keys persist."""

    def __init__(self, ctx):
        super().__init__(daemon=True)
        self.ctx = ctx
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.addr = self.listener.getsockname()
        self.reports = queue.Queue()

    def run(self):
        # The servers' CPUs (`--placement`); on Linux this pins the calling thread only.
        if PLAN.get("server_cpus"):
            os.sched_setaffinity(0, PLAN["server_cpus"])
        while True:
            conn, peer = self.listener.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.settimeout(TIMEOUT)
            sock = conn
            try:
                report = (peer[1], None, None)
                if self.ctx is not None:
                    sock = self.ctx.wrap_socket(conn, server_side=True)
                    report = (peer[1], sock.session_reused, sock.version())
                sock.sendall(b"x")
                drain(sock)
                # Reported only now: the client waits for it before its next connection.
                self.reports.put(report)
            except (OSError, ssl.SSLError) as e:
                self.reports.put((peer[1], "error", str(e)))
            finally:
                sock.close()

    def report_for(self, port):
        deadline = time.monotonic() + TIMEOUT
        while True:
            p, reused, version = self.reports.get(timeout=max(0.0, deadline - time.monotonic()))
            if p != port:
                continue
            if reused == "error":
                raise RuntimeError("server side: " + version)
            return reused, version


def ready_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_ZERO)
    s.settimeout(TIMEOUT)
    return s


class Arm:
    def __init__(self, spec, cert):
        self.spec = spec
        self.session = None
        self.records = []
        self.rounds = []  # records per interleaved round, in order
        self.warmup_failed = 0
        self.warmup_attempted = 0
        self.timed_wall_ns = 0
        if spec["protocol"] == "tcp":
            self.server = Server(None)
            self.client = None
        else:
            version = VERSIONS[spec["protocol"]]
            sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            sctx.minimum_version = sctx.maximum_version = version
            sctx.load_cert_chain(cert["cert"], cert["key"])
            self.server = Server(sctx)
            cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            cctx.minimum_version = cctx.maximum_version = version
            cctx.load_verify_locations(cert["ca"])
            self.client = cctx
        self.server.start()

    def once(self):
        """One connection: [timed_us, cycle_us, client_reused, server_reused,
        client_version, server_version, cipher]."""
        start = time.perf_counter_ns()
        sock = ready_socket()
        try:
            sock.connect(self.server.addr)
            if self.client is None:
                elapsed = time.perf_counter_ns() - start
                sock.recv(1)
                port = sock.getsockname()[1]
                sock.close()
                self.server.report_for(port)
                cycle = time.perf_counter_ns() - start
                return [elapsed / 1000, cycle / 1000, None, None, None, None, None]
            resumed_arm = self.spec["mode"] == "resumed"
            tls = self.client.wrap_socket(
                sock,
                server_hostname="localhost",
                session=self.session if resumed_arm else None,
            )
            elapsed = time.perf_counter_ns() - start
            sock = tls
            if tls.recv(1) != b"x":
                raise RuntimeError("the server's app byte did not arrive")
            if resumed_arm:
                # After reading: a TLS 1.3 ticket has been processed by now.
                self.session = tls.session
            port = tls.getsockname()[1]
            facts = [tls.session_reused, tls.version(), tls.cipher()[0]]
            tls.close()
            server_reused, server_version = self.server.report_for(port)
            cycle = time.perf_counter_ns() - start
            return [
                elapsed / 1000,
                cycle / 1000,
                facts[0],
                server_reused,
                facts[1],
                server_version,
                facts[2],
            ]
        finally:
            sock.close()


def main():
    # The client's CPUs (`--placement`), for this thread: the one that connects.
    if PLAN.get("client_cpus"):
        os.sched_setaffinity(0, PLAN["client_cpus"])
    certs = {c["kind"]: c for c in PLAN["certs"]}
    arms = [Arm(spec, certs.get(spec.get("cert"))) for spec in PLAN["arms"]]
    samples, rounds = PLAN["samples"], PLAN["rounds"]
    rng = random.Random(PLAN["seed"])
    order = list(range(len(arms)))
    for r in range(rounds):
        rng.shuffle(order)
        chunk = samples * (r + 1) // rounds - samples * r // rounds
        for i in order:
            arm = arms[i]
            for _ in range(PLAN["warmup_per_chunk"]):
                arm.warmup_attempted += 1
                try:
                    arm.once()
                except Exception:
                    arm.warmup_failed += 1
            chunk_start = time.perf_counter_ns()
            before = len(arm.records)
            for _ in range(chunk):
                try:
                    arm.records.append(arm.once())
                except Exception as e:
                    arm.records.append(["error", "%s: %s" % (type(e).__name__, e)])
            arm.timed_wall_ns += time.perf_counter_ns() - chunk_start
            arm.rounds.append(len(arm.records) - before)
    json.dump(
        {
            "python": sys.version.split()[0],
            "openssl": ssl.OPENSSL_VERSION,
            "arms": [
                {
                    "spec": a.spec,
                    "warmup_failed": a.warmup_failed,
                    "warmup_attempted": a.warmup_attempted,
                    "timed_wall_s": a.timed_wall_ns / 1e9,
                    "rounds": a.rounds,
                    "connections": a.records,
                }
                for a in arms
            ],
        },
        sys.stdout,
    )


main()
