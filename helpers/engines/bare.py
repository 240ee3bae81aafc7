"""Bare metal: a plain process of the host, no container (the baseline of every comparison)."""

from __future__ import annotations

from .base import Engine


class BareMetal(Engine):
    name = "bare"
    is_container = False

    def availability(self):
        return True, None

    def run_argv(self, image, command, *, run_id=None, name=None, remove=True, detach=False, extra=()):
        return list(command)

    def exec_argv(self, container, command):
        return list(command)

    def info(self):
        return {"engine": "bare", "note": "proceso normal del host, sin contenedor"}
