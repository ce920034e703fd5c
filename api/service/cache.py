"""A bounded, expiring in-memory store of solved overlays, keyed by result id.

Why in memory and bounded: an overlay is a user's photo; it must not touch the disk, and a
flood of uploads must not grow the server without limit. Entries leave on whichever comes
first: their time-to-live, the count cap, or the byte cap (oldest first: with one TTL for
all, insertion order is expiry order).
Lives in the single event-loop process, so no lock is needed.

>>> cache = ResultCache(max_items=2, max_bytes=10, ttl_s=60)
>>> [cache.put(key, value) for key, value in [("a", b"12345"), ("b", b"6789"), ("c", b"0")]]
[True, True, True]
>>> cache.get("a") is None, cache.get("c")
(True, b'0')
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class ResultCache:
    def __init__(
        self,
        *,
        max_items: int,
        max_bytes: int,
        ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_items = max_items
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self.clock = clock
        self.entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self.bytes = 0

    def put(self, key: str, value: bytes) -> bool:
        """Store a value; False when it is larger than the whole cache (not stored)."""
        self.expire()
        if len(value) > self.max_bytes or self.max_items == 0:
            return False
        self.pop(key)
        self.entries[key] = (self.clock() + self.ttl_s, value)
        self.bytes += len(value)
        while len(self.entries) > self.max_items or self.bytes > self.max_bytes:
            self.pop(next(iter(self.entries)))
        return True

    def get(self, key: str) -> bytes | None:
        self.expire()
        entry = self.entries.get(key)
        if entry is None:
            return None
        return entry[1]

    def pop(self, key: str) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.bytes -= len(entry[1])

    def expire(self) -> None:
        """Drop entries past their time; they were stored in expiry order, oldest first."""
        now = self.clock()
        while self.entries:
            key, (expires, _) = next(iter(self.entries.items()))
            if expires > now:
                break
            self.pop(key)

    def __len__(self) -> int:
        self.expire()
        return len(self.entries)
