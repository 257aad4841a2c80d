"""Slow consumers of the stream-load benchmark: event streams that are opened and never read.

Why Python: Node cannot set socket options before connecting. On loopback the server's kernel
send buffer of a stream grows to ~4 MB (MSS 65483, tcp_wmem max), so filling it with ~250-byte
frames would take minutes. Advertising a small MSS (TCP_MAXSEG) and a small receive buffer
(SO_RCVBUF) keeps the kernel's share to ~100-150 KB per stream, so the server's own bound
(streamMaxBufferedBytes) is reached in seconds. The benchmark does not touch system settings.

Usage: slow-readers.py HOST PORT KEY COUNT MSS RCVBUF
Prints one JSON line once every stream got its 200 and the first bytes of its body (then
nothing is read any more). On a line "drain" on stdin: reads every stream until it ends
(the server cut it: EOF after the data it had sent) or stays silent for a second (still
open), prints one JSON line with the counts and the bytes each stream received in all, and
exits.
"""

import json
import select
import socket
import sys
import time


def open_stream(host, port, key, mss, rcvbuf):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((host, port))
    request = (
        f"GET /sdk/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {key}\r\nAccept: text/event-stream\r\n\r\n"
    )
    s.sendall(request.encode())
    return s


def read_head(s):
    """Reads until the end of the head and some body bytes; returns (status, bytes read)."""
    s.settimeout(20)
    data = b""
    while b"\r\n\r\n" not in data or data.endswith(b"\r\n\r\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    status = int(data[9:12]) if len(data) >= 12 else 0
    return status, len(data)


def drain(streams):
    """Reads every stream until EOF (cut by the server) or 1 s of silence (still open)."""
    received = [0] * len(streams)
    ended = [False] * len(streams)
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
            s = streams[i]
            if id(s) in ready_ids:
                try:
                    chunk = s.recv(1 << 16)
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
            elif t - silent_since[i] > 1.0:
                live.discard(i)
    return received, ended


def main():
    host, port, key, count, mss, rcvbuf = sys.argv[1:7]
    port, count, mss, rcvbuf = int(port), int(count), int(mss), int(rcvbuf)
    streams, statuses, head_bytes = [], {}, []
    for _ in range(count):
        s = open_stream(host, port, key, mss, rcvbuf)
        status, n = read_head(s)
        statuses[status] = statuses.get(status, 0) + 1
        head_bytes.append(n)
        streams.append(s)
    print(json.dumps({"opened": len(streams), "statuses": statuses}), flush=True)
    for line in sys.stdin:
        if line.strip() == "drain":
            break
    received, ended = drain(streams)
    print(
        json.dumps(
            {
                "ended": sum(ended),
                "open": len(streams) - sum(ended),
                "bytesReceived": sorted(h + r for h, r in zip(head_bytes, received)),
            }
        ),
        flush=True,
    )
    for s in streams:
        s.close()


if __name__ == "__main__":
    main()
