#!/usr/bin/python3
"""tests/backends/tvm/rpc_loopback.py PORT — a TVM RPC server on 127.0.0.1:PORT for
tests/backends/tvm/tvm_rpc.t, from the project venv's apache-tvm: `python -m
tvm.exec.rpc_server` where it runs; it needs cloudpickle (tvm.support.popen_pool), which
the pinned venv lacks, so otherwise the same server's listen loop (tvm.rpc.server
_listen_loop: accept, key handshake, a forked process serving each session with TVM's
rpc.ServerLoop), which is what rpc_server runs in its worker. Prints "listening" once
the socket accepts connections."""
import runpy
import socket
import sys

port = int(sys.argv[1])
try:
    import cloudpickle  # noqa: F401
except ImportError:
    from tvm.rpc import server

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1)
    print("listening", flush=True)
    server._listen_loop(sock, port, "", None, None, None)
else:
    print("listening", flush=True)  # rpc_server binds before it serves; the test retries
    sys.argv = ["rpc_server", "--host", "127.0.0.1", "--port", str(port), "--port-end", str(port + 1)]
    runpy.run_module("tvm.exec.rpc_server", run_name="__main__")
