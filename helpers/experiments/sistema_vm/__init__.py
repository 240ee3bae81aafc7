"""Experiment 8: system containers versus virtual machines (the Sysbox post, seed 002).

Three kinds of instance, each ready when its init (or its command) prints the ready marker:
- aplicacion: an application container: `sh -c 'echo CURSO-LISTO; exec sleep …'` in the «alpine» image;
- sistema: a system container: PID 1 is busybox init, whose /etc/inittab line prints the marker;
- vm: a QEMU guest (helpers.vm) whose busybox init runs that same inittab line; KVM only if a probe
  boots a guest with it, else TCG (variant `vm_emulada`, labelled «emulada» wherever it appears).
And, where LXD or Incus is set up (helpers.engines.lxd), the post's real scenarios: sistema_lxd, an
unprivileged system container with systemd on the `dir` pool (sistema_lxd_cow: the same on the
copy-on-write pool, for provisioning and disk); anidado_lxd, Docker and Podman nested inside one.
Those, like the optional kinds with systemd, are ready when the instance's own unit (vm.ready_unit) writes
the marker once `systemctl is-system-running --wait` returns inside; kinds.WINDOWS says what each
kind's timed window holds.
Nothing has a route off the machine: the measuring instances have no network device; the network phase
(network.py) reaches its servers only from the host's 127.0.0.1.

kinds.py: kinds, variants, labels, metrics, Arm; measure.py: Config, plan() and run(); phases.py:
provisioning, memory, workloads; instances.py: the containers and the VM behind one interface;
lxd_instances.py: a real system container (LXD) behind it too; lxd_nested.py: scenario 3, an engine
nested in a system container; workload.py: the workloads in one function (GNU gzip, then fio) for any
target; disk_io.py: the fio job; memory.py: PSS and touch-and-free;
analysis.py: summaries, the reference, closing rows; claims.py: the post's claims; network.py: iperf3 in
each scenario (bundle.py: a host binary carried into every instance: gzip's, fio's and iperf3's);
density.py: N limited instances of each kind at once, gzip in all of them and memory given back
(overcommit).
"""

from __future__ import annotations

from ... import vm
from . import disk_io, network, workload
from .analysis import closing_rows, compare, summarize  # noqa: F401
from .claims import DEFERRED_TO_CLASS, SAID, claims  # noqa: F401
from .instances import VMInstance  # noqa: F401
from .kinds import (  # noqa: F401
    ANTES,
    ARRANQUE,
    BASELINE,
    DESPUES,
    DISCO,
    DISCO_ESCRITO,
    DISPONIBLE,
    DURANTE,
    EXPERIMENT,
    FIO,
    GZIP,
    KIND_LABELS,
    NEEDS_ROOT,
    PSS,
    RED,
    RETENIDA,
    is_emulated,
    kind_label,
)
from .measure import Config, provision, run  # noqa: F401
from .memory import memory_given_back  # noqa: F401

TITLE = "Contenedores de sistema frente a máquinas virtuales"  # the notebook's H1 is «NN · TITLE» (tests/course/test_hygiene.py)
NOTEBOOK = "08_sistema_vs_vm"
# The quick profile keeps LXD in its cheapest form (the copy-on-write pool: a snapshot to create, provisioning
# and disk only); the `dir` pool's full copy, its workloads and the nested engine are left to the default run
# and to tests/experiments/sistema_vm/test_lxd.py.
QUICK = {
    "TIPOS": ["aplicacion", "sistema", "sistema_lxd_cow", "vm"],
    "REPETICIONES": 1,
    "INSTANCIAS": 1,
    "MEMORIA_MB": 32,
    "CALENTAMIENTO": 0,
    "DENSIDAD": 2,  # N = 1 and 2 at once: 2× overcommitted on 2 cores, not 4× (the default run's 4)
}
DEBIAN_PACKAGES = [
    *vm.DEBIAN_PACKAGES,
    workload.DEBIAN_PACKAGE,
    disk_io.DEBIAN_PACKAGE,
    network.DEBIAN_PACKAGE,
]
COMPARABLE = ["arranque_listo", "gzip", "memoria_retenida_pct", "memoria_pss_instancia", "disco_instancia"]
CLASS_LABELS = {
    "arranque_listo": "arranque hasta «listo»",
    "gzip": "gzip",
    "memoria_retenida_pct": "memoria retenida",
    "memoria_pss_instancia": "memoria por instancia (PSS)",
    "disco_instancia": "disco por instancia",
    **KIND_LABELS,
}  # its metrics and arms as the class comparison names them
