"""Experiment 3: the cost of running (RUNNING) inside a container that is already up.

Containers are started once (`sleep`), then each workload runs in them through `docker/podman exec`,
and on bare metal, under the probe `probes/bin/cronometro`. Each measurement gives two rows: metric
`extremo_a_extremo` (the whole command as a student types it, timed from the host, as the chapter
measured) and `trabajo` (the work alone, timed inside the environment). `exec` is measured on its own
twice: `exec_true` (`exec CONTENEDOR true` from the host, end to end) and `exec_dentro` (one new process,
timed inside). Two bare-metal baselines: the host's binaries (image "") and a chroot into the image's
exported root filesystem (image = the real image name; helpers.engines.rootfs).

Rows: engine bare/docker/podman; variant `<carga>` or `<carga>:<lugar>` for the I/O workloads archivos,
escritura and copia (lugar: capa = the container's writable overlay layer; volumen = a host directory
bind-mounted into it; on bare metal, host = a fresh directory beside the volumes, and almacen-<motor> =
one in the engine's storage, on the layer's filesystem: each I/O arm is compared with bare metal on its
own filesystem). Values are seconds. `exec` launches a process (LAUNCH); the work inside is RUNNING
(closing_rows says which).

arms.py: the workloads, the arms and how one repetition is timed; environments.py: the containers and
their filesystems; measure.py: Config and run; analysis.py: summaries, the cost of exec, overheads,
the reference, closing rows; claims.py: the chapter's claims.
"""

from __future__ import annotations

from ...engines.rootfs import CHROOT_WHAT
from .analysis import closing_rows  # noqa: F401
from .arms import EXEC_TRUE, METRIC_E2E, METRIC_WORK  # noqa: F401
from .claims import SAID, claims  # noqa: F401
from .measure import EXPERIMENT, Config, run  # noqa: F401
from .summary import CHAPTER_SUMMARY  # noqa: F401

TITLE = "Ejecución: el costo de RUNNING de un contenedor que ya está corriendo"  # the notebook's H1 is «NN · TITLE» (tests/course/test_hygiene.py)
NOTEBOOK = "03_ejecucion"
# Quick: figures without verdicts (fewer than verdict.MIN_N rounds; the verdicts view says so).
QUICK = {"REPETICIONES": 2, "CALENTAMIENTO": 0, "MEGAS": 8, "ARCHIVOS": 200}
BASELINE = ("bare", "hash")  # each workload against the same workload on bare metal; hash by default
# Comparable across machines: the work alone (cronometro), and end to end (what the chapter timed,
# exec included: the only one the reference has).
COMPARABLE = [METRIC_WORK, METRIC_E2E]
CLASS_LABELS = {
    METRIC_WORK: "solo el trabajo",
    METRIC_E2E: "de extremo a extremo",
}  # its metrics and arms as the class comparison names them
NEEDS_ROOT = {"chroot": CHROOT_WHAT}  # listed for a student without root in 00
READS = ("arranque",)  # `run` (experiment 1): «exec_1ms» is judged as exec ÷ run, as its table gives it
