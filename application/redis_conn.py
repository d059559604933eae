"""One way to reach the service's Redis, a single server or a Redis Cluster.

A URL ``redis+cluster://host:port/0`` (any one node of the cluster), or ``redis://`` with
``cluster=True`` (``TABLEPOST_REDIS_CLUSTER=1``, read by the adapters), gives redis-py's cluster client;
anything else a plain client. The same ``redis+cluster://`` scheme is what Flask-Limiter's storage
takes, so one URL serves both.

Everything the service stores is laid out for a cluster: the keys a Lua script or a transaction
touches share one hash tag (``g:{<id>}:...`` for a game, ``t:{<id>}:...`` for a tournament,
``...:{ix<nn>}`` for one shard of the indexes of due work), and no single key is touched by every
move (docs/deploy.md).
"""
from __future__ import annotations

import redis
from redis.cluster import RedisCluster

CLUSTER_SCHEME = "redis+cluster://"


def is_cluster(url: str, cluster: bool = False) -> bool:
    return cluster or url.startswith(CLUSTER_SCHEME) or url.startswith("rediss+cluster://")


def plain_url(url: str) -> str:
    """The ``redis://`` (or ``rediss://``) form of a ``redis+cluster://`` URL."""
    if url.startswith(CLUSTER_SCHEME):
        return "redis://" + url[len(CLUSTER_SCHEME):]
    if url.startswith("rediss+cluster://"):
        return "rediss://" + url[len("rediss+cluster://"):]
    return url


def cluster_url(url: str) -> str:
    """The ``redis+cluster://`` form of a node's URL (for Flask-Limiter's storage)."""
    if url.startswith("rediss://"):
        return "rediss+cluster://" + url[len("rediss://"):]
    if url.startswith("redis://"):
        return CLUSTER_SCHEME + url[len("redis://"):]
    return url


def connect(url: str, cluster: bool = False, **kw):
    """A client for ``url``: :class:`redis.cluster.RedisCluster` for a cluster, else
    :class:`redis.Redis`. ``kw`` are connection options (``socket_timeout``...)."""
    if is_cluster(url, cluster):
        return RedisCluster.from_url(plain_url(url), **kw)
    return redis.Redis.from_url(url, **kw)


def clients_of(client) -> list:
    """One plain client per master of a cluster (or ``[client]``): for commands that read every
    node, such as INFO."""
    if isinstance(client, RedisCluster):
        return [client.get_redis_connection(n) for n in client.get_primaries()]
    return [client]
