"""Experiment 8's vocabulary: the kinds of instance, their variants and Spanish labels, the metrics."""

from __future__ import annotations

from dataclasses import dataclass

from ... import measure, vm
from .. import runner

EXPERIMENT = "sistema_vm"
SOURCE = "el artículo sobre el rendimiento de Sysbox"
KINDS = (
    "aplicacion",
    "sistema",
    "sistema_lxd",
    "sistema_lxd_cow",
    "anidado_lxd",
    "vm",
    "sistema_systemd",
    "vm_systemd",
)
DEFAULT_KINDS = ("aplicacion", "sistema", "sistema_lxd", "sistema_lxd_cow", "anidado_lxd", "vm")
LXD_KINDS = ("sistema_lxd", "sistema_lxd_cow", "anidado_lxd")
LXD_COW = "sistema_lxd_cow"  # the same system container on the copy-on-write pool: provisioning and disk only
NESTED = "anidado_lxd"  # scenario 3: its own phase (one instance), not the provisioning and memory rounds
LXD_ENGINE = "lxd"
HOST_RUN = "anfitrion"  # variant of the host's own engine in the nested comparison
VM_KINDS = ("vm", "vm_systemd")
SYSTEMD_KINDS = ("sistema_systemd", "vm_systemd")
VM_ENGINE = "qemu"
BASELINE = ("bare", "proceso")
# What a student without root loses here (notebook 00 and the instructor's guide list it). Docker needs its
# group like everywhere; the VM runs under TCG for anyone (KVM needs the «kvm» group).
NEEDS_ROOT = {
    "lxd": "los contenedores de sistema de LXD, escenarios (2) y (3) del artículo (también con el grupo "
    "«lxd», que equivale a root)",
    "systemd": "el contenedor de sistema y la VM con systemd, opcionales (sus imágenes las prepara "
    "«make setup» como root)",
    "red": "el contenedor de aplicación en la prueba de red (su puente propio, sin salida de esta máquina, "
    "pide iptables)",
}

# Metrics (unit)
ARRANQUE = "arranque_listo"  # ms, LAUNCH to ready marker
DISCO = "disco_instancia"  # MB on the host's disk added by one instance
PSS = "memoria_pss_instancia"  # MB, PSS of every process of one idle instance
DISPONIBLE = "memoria_disponible_instancia"  # MB, drop of MemAvailable per idle instance
ANTES, DURANTE, DESPUES = "memoria_antes", "memoria_durante", "memoria_despues"  # MB, host's view
RETENIDA = "memoria_retenida_pct"  # % of the touched memory the host still holds after the free
# A VM's «después», split (VM.resident_split): the guest's RAM QEMU holds, and QEMU's own memory (MB)
DESPUES_HUESPED, DESPUES_QEMU = "memoria_despues_ram_huesped", "memoria_despues_qemu"
GZIP = "gzip"  # ms of work alone (cronometro)
FIO = "fio_iops"  # read + write IOPS of the disk-I/O job (fio, direct I/O), higher is better
DISCO_ESCRITO = (
    "disco_escrito"  # MB a nested instance wrote over its copy of the image (what a CoW pool keeps)
)
FASES_LXD = {"crear": "lxd_crear", "iniciar": "lxd_iniciar", "systemd": "lxd_systemd"}  # ms, per phase
PSS_MONITOR = "memoria_pss_monitor"  # MB, an LXD instance's `[lxc monitor]` (included in PSS)
PSS_DAEMON = "memoria_pss_daemon"  # MB, the LXD daemon's PSS, once for every instance (kept apart)
RED = "red_iperf"  # Gbit/s the iperf3 client on the host received from the server inside (127.0.0.1)
RUN_MOTOR = "run_motor"  # ms, `ENGINE run --rm --network none IMAGE echo ok`, host or nested
# Density with overcommit (density.py): N instances of a kind at once, each at most DENSITY_CPUS CPUs
DENSIDAD_INSTANCIA = "densidad_gzip_instancia"  # MB/s of gzip per instance (mean of the N), as _n{N}
DENSIDAD_TOTAL = "densidad_gzip_total"  # MB/s of gzip of the N instances together, as _n{N}
DENSIDAD_CPUS = "densidad_cpus_limite"  # CPUs an instance may use, read back (its cgroup; a VM's vCPUs)
DENSIDAD_MEMORIA = "densidad_memoria_limite"  # MB, its memory limit read back (a VM's RAM)
DENSIDAD_DESPUES = "densidad_memoria_despues"  # MB the host holds for one of N instances after the free
DENSIDAD_RETENIDA = "densidad_memoria_retenida_pct"  # % of its touched block the host still holds
DENSITY_CPUS = 2  # like the post's `docker run --cpus=2` and its 2-vCPU VMs
READY = vm.READY


def level_metric(metric: str, n: int) -> str:
    """The metric of one density level: `metric` with N instances at once."""
    return f"{metric}_n{int(n)}"


MB = 1024 * 1024

# ---------------------------------------------------------------- what each timed window holds
# The page prints these sentences, the measuring code follows them (LXDInstance.start records its phases
# under LXD_WINDOWS' keys and installs the unit they name) and tests/experiments/sistema_vm/test_windows.py
# holds the two together. Every kind with systemd is «listo» on the same signal, emitted by the instance
# itself: `systemctl is-system-running --wait`, run once inside, returns (the boot is over: «running» or
# «degraded») and the instance's unit (vm.ready_unit) writes the marker, on its console (VM, Podman) or
# in a named pipe the host sleeps on (LXD). Nothing polls an instance from the host while it boots.
SYSTEMD_READY = "systemctl is-system-running --wait"
LXD_READY_DIR = "/curso-listo"  # inside an LXD instance: the host's folder holding the named pipe
LXD_READY_PIPE = f"{LXD_READY_DIR}/{measure.Fifo.NAME}"
SYSTEMD_SIGNAL = (
    f"la unidad `{vm.READY_UNIT_NAME}` de la instancia escribe «{READY}» cuando `{SYSTEMD_READY}` "
    "(una sola vez, dentro) dice que el arranque terminó"
)
BUSYBOX_SIGNAL = f"busybox init ejecuta su línea `sysinit`, que imprime «{READY}»"
LXD_WINDOWS = {  # phase (FASES_LXD) -> what its window holds
    "crear": "`lxc init`: la copia de la imagen (en «dir», con el cambio de dueños; en btrfs, una instantánea)",
    "iniciar": "`lxc start`, hasta que devuelve (systemd, el PID 1 del contenedor, ya corre)",
    "systemd": f"desde ahí hasta que {SYSTEMD_SIGNAL}, en la tubería con nombre `{LXD_READY_PIPE}` que el "
    "host espera dormido (sin `lxc exec` ni sondeo)",
}
LXD_WINDOW = (
    " + ".join(LXD_WINDOWS) + " (cada fase, abajo); los dispositivos (sondas, datos, la tubería) y la "
    "unidad se añaden entre crear e iniciar, fuera de la ventana"
)
WINDOWS = {  # kind -> what its «arranque_listo» window holds (all but NESTED, never timed to «listo»)
    "aplicacion": f"`run` adjunto, desde lanzarlo hasta que el comando imprime «{READY}» en su salida",
    "sistema": f"`run` adjunto, desde lanzarlo hasta que {BUSYBOX_SIGNAL} en su salida",
    "sistema_systemd": f"`podman run -t --systemd=always` adjunto, desde lanzarlo hasta que {SYSTEMD_SIGNAL}, "
    "en su terminal",
    "sistema_lxd": LXD_WINDOW,
    "sistema_lxd_cow": LXD_WINDOW,
    "vm": f"crear el overlay qcow2 y arrancar QEMU hasta que {BUSYBOX_SIGNAL} por la consola serie",
    "vm_systemd": f"crear el overlay qcow2 y arrancar QEMU hasta que {SYSTEMD_SIGNAL}, por la consola serie",
}


def variant_of(kind: str, accel: str) -> str:
    """The variant stored in raw.csv: the VM's carries its acceleration, so emulated figures are never
    mixed with accelerated ones (here, in the class comparison or anywhere else)."""
    if kind in VM_KINDS:
        return f"{kind}_kvm" if accel == "kvm" else f"{kind}_emulada"
    return kind


def is_emulated(variant: str) -> bool:
    return variant.endswith("_emulada")


# Each instance kind (a variant of raw.csv) as a reader names it; the class comparison reads it too
KIND_LABELS = {
    "aplicacion": "contenedor de aplicación",
    "sistema": "contenedor de sistema",
    "vm_emulada": "VM emulada (TCG)",
    "vm_kvm": "VM (KVM)",
    "proceso": "bare metal",
    "sistema_systemd": "contenedor de sistema con systemd (Podman, sustituto sin LXD)",
    "sistema_lxd": "contenedor de sistema LXD (systemd, sin privilegios)",
    "sistema_lxd_cow": "contenedor de sistema LXD en un pool con copia en escritura (btrfs)",
    "anidado_lxd": "contenedor dentro de un contenedor de sistema LXD",
    "anfitrion": "motor en el host",
    "vm_systemd_emulada": "VM con systemd, emulada (TCG)",
    "vm_systemd_kvm": "VM con systemd (KVM)",
}

# Every variant in the order the tables and the closing rows list them.
VARIANT_ORDER = (
    "proceso",
    "aplicacion",
    "sistema",
    "sistema_lxd",
    "sistema_lxd_cow",
    "anfitrion",
    "anidado_lxd",
    "vm_kvm",
    "vm_emulada",
    "sistema_systemd",
    "vm_systemd_kvm",
    "vm_systemd_emulada",
)


def kind_label(variant: str) -> str:
    return KIND_LABELS.get(variant, variant)


@dataclass(frozen=True)
class Arm(runner.Arm):
    kind: str = ""
