"""Slow consumers of the stream-load benchmark: event streams opened and never read.

Why Python: Node cannot set socket options before connecting. On loopback the kernel's send
buffer of a stream grows to ~4 MB, which ~250-byte frames would take minutes to fill; a small
advertised MSS (TCP_MAXSEG) and receive buffer (SO_RCVBUF) keep the kernel's share to ~120 KB,
so the server's own bound (streamMaxBufferedBytes) is reached in seconds. No system setting is
touched.

Usage: slow-readers.py HOST PORT KEY COUNT MSS RCVBUF. Prints one JSON line once every stream got
its 200 and its first body bytes (then reads nothing). On "drain" on stdin: reads every stream
until it ends (the server cut it) or is silent for 1 s (still open), prints one JSON line with
the counts and the bytes each stream received in all, and exits.
"""

import json
import select
import socket
import sys
import time


def open_stream(host, port, key, mss, rcvbuf):
    """Opens a stream; returns (socket, status, bytes read up to the end of the head and a bit)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((host, port))
    s.sendall(
        f"GET /sdk/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {key}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    s.settimeout(20)
    data = b""
    while b"\r\n\r\n" not in data or data.endswith(b"\r\n\r\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return s, int(data[9:12]) if len(data) >= 12 else 0, len(data)


def drain(streams):
    """Reads every stream until EOF (cut by the server) or 1 s of silence (still open)."""
    received, ended = [0] * len(streams), [False] * len(streams)
    silent_since = [time.monotonic()] * len(streams)
    for s in streams:
        s.setblocking(False)
    live = set(range(len(streams)))
    deadline = time.monotonic() + 60
    while live and time.monotonic() < deadline:
        ready, _, _ = select.select([streams[i] for i in live], [], [], 0.1)
        ready_ids = {id(s) for s in ready}
        t = time.monotonic()
        for i in list(live):
            if id(streams[i]) not in ready_ids:
                if t - silent_since[i] > 1.0:
                    live.discard(i)
                continue
            try:
                chunk = streams[i].recv(1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if not chunk:
                ended[i] = True
                live.discard(i)
            else:
                received[i] += len(chunk)
                silent_since[i] = t
    return received, ended


def main():
    host, port, key, count, mss, rcvbuf = sys.argv[1:7]
    opened = [open_stream(host, int(port), key, int(mss), int(rcvbuf)) for _ in range(int(count))]
    streams = [s for s, _, _ in opened]
    statuses = {}
    for _, status, _ in opened:
        statuses[status] = statuses.get(status, 0) + 1
    print(json.dumps({"opened": len(streams), "statuses": statuses}), flush=True)
    for line in sys.stdin:
        if line.strip() == "drain":
            break
    received, ended = drain(streams)
    total = sorted(n + r for (_, _, n), r in zip(opened, received))
    print(json.dumps({"ended": sum(ended), "open": len(streams) - sum(ended), "bytesReceived": total}), flush=True)
    for s in streams:
        s.close()


if __name__ == "__main__":
    main()
