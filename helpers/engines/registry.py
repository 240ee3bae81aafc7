"""One shared engine object per name, and a way for tests to put another one in its place."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .bare import BareMetal
from .base import Engine
from .docker import Docker
from .podman import Podman

_FACTORIES = {"bare": BareMetal, "docker": Docker, "podman": Podman}
_SHARED: dict[str, Engine] = {}
_INSTALLED: dict[str, Engine] = {}


def get_engine(name: str) -> Engine:
    """One shared adapter per engine name ("bare", "docker", "podman"), or the one `install`ed."""
    if name in _INSTALLED:
        return _INSTALLED[name]
    if name not in _SHARED:
        _SHARED[name] = _FACTORIES[name]()
    return _SHARED[name]


def reset_cache() -> None:
    """Forget the shared adapters (the next get_engine builds new ones); installed ones stay."""
    _SHARED.clear()


def install(name: str, engine: Engine | None) -> Engine | None:
    """Make get_engine(name) return `engine` (None: back to the real one). Returns what was installed
    before. For tests: a fake engine stands where a real one would be."""
    previous = _INSTALLED.pop(name, None)
    if engine is not None:
        _INSTALLED[name] = engine
    return previous


@contextlib.contextmanager
def substituted(name: str, engine: Engine) -> Iterator[Engine]:
    """get_engine(name) returns `engine` inside the block; what was there before comes back after."""
    previous = install(name, engine)
    try:
        yield engine
    finally:
        install(name, previous)
