"""The post's workloads in one function, `measure(target)`: gzip (CPU) and fio (disk, disk_io.py) in one
target, the same way in every kind of instance.

A target is anything with `timed_gzip()` (ms) and `timed_fio()` (IOPS): an instance (instances.py,
lxd_instances.py), a container the engine nested in LXD keeps running (lxd_instances.InnerContainer) or
bare metal (Bare, here).

gzip: the post's CPU workload comes from the Phoronix Test Suite, profile «Gzip Compression»
(pts/compress-gzip 1.2.0): `tar -zcf` of two copies of the Linux 4.13 source tree (unpacked from its
155 MB .tar.gz), timed by the suite in seconds. Here: Debian's GNU gzip (not busybox's) at its default
level 6, the level `tar -z` uses, on the first INPUT_MIB MiB of one file of synthetic text (helpers.vm builds it: the
same bytes on every side), to /dev/null, timed inside the target by probes/cronometro. What differs: no tar
and no file tree to read (the figure is the compression alone), a far smaller input (an emulated VM must
finish it in about a second) and text that compresses unlike source code. GNU gzip reaches every instance
like fio and iperf3 (bundle.py: read-only at /gzip, a disk of its own in the VM); without it (no
`make setup`), busybox's gzip everywhere, and the page says so (`tool()`).
"""

from __future__ import annotations

import statistics
from pathlib import Path

from ... import measure as timing
from ... import probes, vm
from ...errors import ComandoFallido
from . import disk_io
from .bundle import Bundle
from .kinds import FIO, GZIP

GZIP_BUNDLE = Bundle("gzip", "/gzip", "gzip")
DEBIAN_PACKAGE = GZIP_BUNDLE.package
PROFILE = "pts/compress-gzip 1.2.0"  # the Phoronix Test Suite profile the post's gzip figure comes from
LEVEL = 6  # gzip's default, the one `tar -z` uses in that profile
FILE_MIB = vm.GUEST_DATA_MB  # the data file: the same synthetic text on every side
# gzip's input: the file's first INPUT_MIB MiB, piped in by `head -c` (gzip_script). With all 8 MiB, one
# pass took 0.3 s in a container and 1 s in the emulated VM (the quiet run), and a run makes 42 passes in
# the workloads and 126 in the density phase (N = 1, 2 and 4 per kind and round): half the input saves
# some 28 s of that run, by its own gzip times. Still 0.15 s in a container, timed inside by cronometro.
INPUT_MIB = 4
# A round's gzip figure: the median of GZIP_PASSES passes in a row in the same target. In the fresh
# course's run (6 rounds), one pass in six came out 5-27 % slower than its neighbours (169.7 ms among
# 131-138 in one application container), and with 6 rounds the interval of a median ratio runs from
# nearly the smallest per-round ratio to the largest: gzip in a system container against an application
# container read 0.99× [0.78, 1.10] against the post's ±5 %. The median of three drops a lone slow pass
# (two runs after it: [0.96, 1.01] and [0.98, 1.08]); the two extra passes cost 40-50 s of 08 (205 s →
# 244-256 s), most of it entering each instance once more per pass, not gzip itself.
GZIP_PASSES = 3
DATA = "/datos/entrada.txt"  # where every instance sees it


def gnu() -> bool:
    """GNU gzip's folder is ready for the instances (else busybox's gzip, everywhere)."""
    return GZIP_BUNDLE.available()


def tool() -> str:
    """The gzip every target runs, as the page names it."""
    return "GNU gzip (el de Debian)" if gnu() else "gzip de busybox (falta el de Debian: «make setup»)"


def gzip_script(
    where: str = GZIP_BUNDLE.where, data: str = DATA, busybox: str = "", mib: int | None = INPUT_MIB
) -> str:
    """The shell line that compresses `data` to /dev/null: GNU gzip from its folder at `where`, or, without
    it, busybox's (`busybox`: its path where it is not the shell's own applet). `mib`: only the file's
    first `mib` MiB, piped in by `head -c` (busybox's, like the shell); None: the whole file."""
    applet = f"{busybox} " if busybox else ""
    head = "" if mib is None else f"{applet}head -c {mib * 2**20} {data} | "
    source = [data] if mib is None else []  # gzip reads its standard input after `head`
    if gnu():
        return head + " ".join(GZIP_BUNDLE.argv(f"-{LEVEL}", "-c", *source, where=where)) + " > /dev/null"
    return head + " ".join([f"{applet}gzip", f"-{LEVEL}", "-c", *source]) + " > /dev/null"


def part(gzip_meta: dict) -> str:
    """What one gzip compressed, from a run's meta.json «gzip»: the first MiB of the file, or all of it
    (runs before the part: no `file_mb`)."""
    mib, whole = gzip_meta.get("input_mb"), gzip_meta.get("file_mb")
    if whole and mib and mib < whole:
        return f"los primeros {mib} MiB de un archivo de {whole} MiB"
    return f"un archivo de {mib} MiB"


def sentence(gzip_meta: dict | None) -> str:
    """One Spanish sentence on the gzip a run measured (its meta.json «gzip»), against the post's."""
    if not gzip_meta:
        return ""
    level = gzip_meta.get("level")
    who = (
        "GNU gzip (el de Debian)"
        if gzip_meta.get("tool") == "GNU gzip"
        else "el gzip de busybox (faltaba el de Debian, que prepara «make setup»)"
    )
    return (
        f"gzip: {who}{f', nivel {level}' if level else ''}, sobre {part(gzip_meta)} de texto sintético, el "
        "mismo en cada instancia, y cronometrado dentro de ella"
        + (
            f"; la cifra de cada ronda es la mediana de {passes} pasadas seguidas (una pasada lenta sola no "
            "la mueve)"
            if (passes := gzip_meta.get("passes", 1)) > 1
            else ""
        )
        + ". La cifra del "
        f"artículo sale del perfil de Phoronix {PROFILE}: «tar -zcf» de dos copias del árbol de fuentes de "
        "Linux 4.13, cronometrado en segundos. Aquí no hay tar ni árbol de archivos que leer (solo "
        "comprimir), la entrada es mucho menor y el texto se comprime distinto que el código fuente."
    )


def cronometro_ms(text: str, code: int) -> float:
    """The work's time from probes/cronometro's report, in ms (a Spanish error if it failed)."""
    elapsed_ns, status = probes.parse_cronometro(text)
    if code != 0 or status != 0:
        raise ComandoFallido(f"gzip falló dentro de la instancia (código {code or status}): {text[-300:]}")
    return elapsed_ns / 1e6


class Bare:
    """Bare metal: the same gzip and fio from their folders on the host; fio's file in `scratch` (on disk,
    never a tmpfs)."""

    def __init__(self, scratch: Path, guest):
        self.scratch, self.guest = scratch, guest

    def timed_gzip(self, mib: int = INPUT_MIB) -> float:
        busybox = str(self.guest.rootfs / "bin" / "busybox")
        script = gzip_script(str(GZIP_BUNDLE.folder), str(self.guest.data_file), busybox, mib)
        argv = [str(probes.path("cronometro")), "sh", "-c", script]
        _, code, stderr = timing.spawn_and_wait(argv, keep_stderr=True)
        return cronometro_ms(stderr, code)

    def timed_fio(self) -> float:
        target = str(self.scratch / "curso-fio.dat")
        return disk_io.run_checked(disk_io.command(target, where=str(disk_io.BUNDLE)))


def measure(target, fio: bool = True) -> list[tuple[str, float, str]]:
    """gzip (the median of GZIP_PASSES passes), then fio (if `fio`), in `target`: rows (metric, value,
    unit) for ctx.record."""
    passes = [target.timed_gzip() for _ in range(GZIP_PASSES)]
    rows = [(GZIP, round(statistics.median(passes), 3), "ms")]
    if fio:
        rows.append((FIO, round(target.timed_fio(), 1), "IOPS"))
    return rows


def provision(log) -> bool:
    """Gather the host's GNU gzip, its libraries and the loader into its folder, and an ext4 image of it."""
    return GZIP_BUNDLE.build(log, "la prueba de CPU")


def metadata() -> dict:
    """What raw.csv's gzip rows measured, for meta.json."""
    return {
        "input_mb": INPUT_MIB,
        "file_mb": FILE_MIB,
        "input_unit": "MiB",
        "tool": "GNU gzip" if gnu() else "busybox gzip",
        "level": LEVEL,
        "passes": GZIP_PASSES,
        "profile": PROFILE,
        "timer": "probes/cronometro (CLOCK_MONOTONIC dentro)",
    }
