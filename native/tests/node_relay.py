#!/usr/bin/env python3
"""Runs a command in another guest as if it ran here: a node launcher of the conformance suite
(NodeProcess's memchan.test.nodeLaunchers) for the rdma boot, whose node JVMs run in both guests.

  node_relay.py serve PORT                 # in the guest that runs the nodes: serves until told to stop
  node_relay.py COMMAND ARG...             # here: runs COMMAND at $MEMCHAN_NODE_RELAY (HOST:PORT)
  node_relay.py stop                       # ends the server at $MEMCHAN_NODE_RELAY

The command's stdin, stdout and stderr are this process's, its exit status this process's exit
status (128 + the signal when a signal ended it). When this process ends before the command
(SIGKILL included: the kernel closes its connection), the server SIGKILLs the command, so that a
test's kill of a node kills the node's JVM. Frames in both directions: one kind byte, a 4-byte
big-endian length, the bytes. To the server: 'i' stdin bytes, 'c' stdin closed. From it: 'o'
stdout, 'e' stderr, 'x' the exit status (decimal), 'f' the command could not start (why).
The first line to the server is JSON: {"argv": [...], "cwd": DIR} or {"stop": true}.
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading


def send_frame(sock, lock, kind, data):
    with lock:
        sock.sendall(kind + struct.pack(">I", len(data)) + data)


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(sock):
    head = recv_exact(sock, 5)
    if head is None:
        return None, None
    (n,) = struct.unpack(">I", head[1:])
    data = recv_exact(sock, n) if n else b""
    return (None, None) if data is None else (head[:1], data)


def relay_address():
    spec = os.environ.get("MEMCHAN_NODE_RELAY", "")
    host, _, port = spec.rpartition(":")
    if not host or not port.isdigit():
        sys.exit("node_relay: MEMCHAN_NODE_RELAY must be HOST:PORT (it is '%s')" % spec)
    return host, int(port)


def serve_one(conn, stop):
    reader = conn.makefile("rb")
    header = json.loads(reader.readline())
    if header.get("stop"):
        stop.set()
        conn.close()
        return
    lock = threading.Lock()
    try:
        child = subprocess.Popen(header["argv"], cwd=header.get("cwd") or "/", stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        send_frame(conn, lock, b"f", str(e).encode())
        conn.close()
        return

    def pump(stream, kind):
        for chunk in iter(lambda: stream.read1(65536), b""):
            try:
                send_frame(conn, lock, kind, chunk)
            except OSError:
                break

    pumps = [threading.Thread(target=pump, args=(child.stdout, b"o"), daemon=True),
             threading.Thread(target=pump, args=(child.stderr, b"e"), daemon=True)]
    for t in pumps:
        t.start()

    def from_client():
        # the header line was read through a buffered file: read the frames through it as well
        while True:
            head = reader.read(5)
            if len(head) < 5:
                break
            (n,) = struct.unpack(">I", head[1:])
            data = reader.read(n) if n else b""
            if len(data) < n:
                break
            try:
                if head[:1] == b"i":
                    child.stdin.write(data)
                    child.stdin.flush()
                elif head[:1] == b"c":
                    child.stdin.close()
            except (OSError, ValueError):
                pass   # the command closed its stdin or ended
        # the client is gone: so is its command
        if child.poll() is None:
            child.kill()

    threading.Thread(target=from_client, daemon=True).start()
    status = child.wait()
    for t in pumps:
        t.join()
    try:
        send_frame(conn, lock, b"x", str(status).encode())
    except OSError:
        pass
    conn.close()


def serve(port):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(64)
    srv.settimeout(0.5)
    stop = threading.Event()
    print("node_relay: serving on port %d" % port, flush=True)
    while not stop.is_set():
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve_one, args=(conn, stop), daemon=True).start()
    srv.close()


def run(argv):
    sock = socket.create_connection(relay_address())
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(json.dumps({"argv": argv, "cwd": os.getcwd()}).encode() + b"\n")
    lock = threading.Lock()

    def to_server():
        try:
            for chunk in iter(lambda: sys.stdin.buffer.read1(65536), b""):
                send_frame(sock, lock, b"i", chunk)
            send_frame(sock, lock, b"c", b"")
        except OSError:
            pass

    threading.Thread(target=to_server, daemon=True).start()
    while True:
        kind, data = recv_frame(sock)
        if kind is None:
            sys.stderr.write("node_relay: the connection to the server ended before the command's exit status\n")
            os._exit(125)
        if kind == b"o":
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        elif kind == b"e":
            sys.stderr.buffer.write(data)
            sys.stderr.buffer.flush()
        elif kind == b"f":
            sys.stderr.write("node_relay: %s could not start at the server: %s\n" % (argv[0], data.decode()))
            os._exit(127)
        elif kind == b"x":
            status = int(data)
            os._exit(128 - status if status < 0 else status)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        serve(int(sys.argv[2]))
    elif sys.argv[1:] == ["stop"]:
        sock = socket.create_connection(relay_address())
        sock.sendall(json.dumps({"stop": True}).encode() + b"\n")
        sock.close()
    elif len(sys.argv) > 1:
        run(sys.argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
