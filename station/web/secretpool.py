"""The one bounded place every secret check (scrypt of a PIN) runs: one worker thread.

Why one thread: each scrypt check takes 16 MiB (N=2**14, r=8). Run on asyncio's default
executor, each of up to 32 threads kept its own malloc arena with a 16 MiB block in it
(issue 31: 100 parallel wrong PINs took the station from 76 to 144 MB, and it stayed). One
thread holds at most one check's memory at a time, and checks run in turn, which the
lockout needs anyway (a check counts its failure before the next one looks).

Why the mmap threshold: glibc raises its mmap threshold to the size of a freed mmapped
block, so after the first check the 16 MiB came from the heap and stayed there. Fixed at
1 MiB (``mallopt(M_MMAP_THRESHOLD)``, which also turns the raising off), every block that
large is mapped and unmapped, so the memory goes back to the system after each check:
RSS after 1,000 wrong sign-ins is within 2 % of before (benchmarks/bench_secrets.py,
tests/web/test_secretpool.py). On a C library without ``mallopt`` the one thread still
bounds it to one check's worth.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

T = TypeVar("T")
WORKERS: Final = 1
M_MMAP_THRESHOLD: Final = -3  # glibc's malloc.h
MMAP_THRESHOLD_BYTES: Final = 1024 * 1024

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()
mmap_threshold_fixed = False  # for the tests and the benchmark: did mallopt take it


def _fix_mmap_threshold() -> bool:
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))


def pool() -> ThreadPoolExecutor:
    """The process's one secret-check executor, made on first use."""
    global _pool, mmap_threshold_fixed  # noqa: PLW0603 - one per process, on purpose
    with _lock:
        if _pool is None:
            mmap_threshold_fixed = _fix_mmap_threshold()
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="secret-check")
        return _pool


def run(fn: Callable[[], T]) -> T:
    """``fn()`` on the secret-check thread, waited for (from any thread but that one)."""
    return pool().submit(fn).result()


async def run_async(fn: Callable[[], T]) -> T:
    """``fn()`` on the secret-check thread, awaited from an event loop."""
    return await asyncio.get_running_loop().run_in_executor(pool(), fn)
