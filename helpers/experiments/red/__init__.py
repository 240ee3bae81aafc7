"""Experiment 6: HTTP throughput natively, in Docker, in Podman and in Kubernetes («Container Performance
Testing»).

The same tiny server (Go net/http, gin, actix-web or Rocket) answers `GET /` on bare metal and in containers,
behind several network paths; wrk loads it with the document's `-t12 -c400`, always on 127.0.0.1, both
unpinned as the document ran them (and, on the course's own two pinned arms, on two different CPUs).

arms.py: the network paths and which of them run here (plan); servers.py: the servers, their build, their
binary-only images and `make setup`; start.py: starting an arm's server and finding its processes;
kube.py: the Kubernetes arms (their Pods on the run's one cluster, their way in from 127.0.0.1);
load.py: wrk, and the one function that builds a load target (127.0.0.1 and a port this run published,
nothing else); measure.py: Config, cpu_layout and run(); analysis.py: summaries, the reference, closing
rows, the run's conditions; claims.py: the source's claims.
"""

from __future__ import annotations

from .analysis import BASELINE, closing_rows  # noqa: F401
from .arms import NEEDS_ROOT  # noqa: F401
from .claims import SAID, claims  # noqa: F401
from .measure import EXPERIMENT, Config, cpu_layout, estimated_seconds, run  # noqa: F401
from .servers import provision  # noqa: F401

TITLE = "Red: ¿cuánto rendimiento HTTP cuesta un contenedor?"  # the notebook's H1 is «NN · TITLE» (tests/course/test_hygiene.py)
NOTEBOOK = "06_red_http"
# The quick profile: the three arms of the Docker claims (native, Docker -p, Docker -p without seccomp) on
# net/http, MIN_N rounds of the shortest window its losses are judged on, in under a minute.
QUICK = {
    "SERVIDORES": ["nethttp"],
    "BRAZOS": ["nativo", "docker-puerto", "docker-seguridad"],
    "DURACION_S": 2,
    "REPETICIONES": 6,
    "CALENTAMIENTO": 0,
}
DEBIAN_PACKAGES = ["wrk"]
COMPARABLE = ["req_s", "latencia_p50", "latencia_p99"]
CLASS_LABELS = {
    "req_s": "peticiones por segundo",
    "latencia_p50": "latencia p50",
    "latencia_p99": "latencia p99",
    "puerto": "puerto publicado (-p)",
    "nativo": "nativo",
}  # its metrics and arms as the class comparison names them
