"""Where the course keeps things: every path constant shared by several modules, defined once."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Files the course writes for itself (the Podman containers.conf): inside the project, git-ignored.
PROJECT_STATE_DIR = PROJECT_ROOT / ".curso"
# What is built or downloaded once per user (images, runsc, servers, VM kernels): outside the project.
# CURSO_CACHE moves it elsewhere (the set-up test builds everything into a clean temporary folder); every
# cache path of the course derives from CACHE_DIR, read here once, at import.
CACHE_ENV = "CURSO_CACHE"
CACHE_DIR = (
    Path(os.environ[CACHE_ENV])
    if os.environ.get(CACHE_ENV)
    else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "curso-contenedores"
)
PROBES_DIR = PROJECT_ROOT / "probes"
