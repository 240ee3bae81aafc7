"""Density with overcommit (seed 002, «Workload Performance» and «Server Consolidation»): N instances of
each kind at once (application container, system container, VM), each limited like the post's (2 CPUs
and a memory limit: `--cpus`/`--memory`, LXD's limits.*, the VM's vCPUs and RAM), their limits read back
from the kernel; all N run the instances' own gzip workload (`timed_gzip`, the one 08 carries into every
instance) at the same moment, in rounds interleaved across kinds. N grows with this machine's cores so
the CPUs assigned go from not overcommitted (N·2 ≤ cores) to 2× and 4× overcommitted (`levels`).
Then memory at density: touch-and-free (memory.memory_given_back) in the N instances of every kind at
once (what the host keeps for each is read from its own cgroup, or from its QEMU process).

Every instance is made by the run's `make` (owned by the run: removed on success, error and Ctrl-C)
and has no network device, like the others of experiment 8.
"""

from __future__ import annotations

import math
import os
import random
import threading
from concurrent.futures import ThreadPoolExecutor

from ... import vm
from ..runner import Log, Progress, RunContext, measure_rounds
from .instances import VMInstance
from .kinds import (
    DENSIDAD_CPUS,
    DENSIDAD_DESPUES,
    DENSIDAD_INSTANCIA,
    DENSIDAD_MEMORIA,
    DENSIDAD_RETENIDA,
    DENSIDAD_TOTAL,
    DENSITY_CPUS,
    DESPUES,
    LXD_COW,
    MB,
    READY,
    RETENIDA,
    Arm,
    kind_label,
    level_metric,
)
from .memory import memory_given_back

OVERCOMMIT = (1, 2, 4)  # CPUs assigned ÷ cores at each level
# The kinds the phase compares, in order; the system container is LXD's where it is set up (the
# copy-on-write pool first: its instances are created in about a second), else the busybox one.
SYSTEM_KINDS = (LXD_COW, "sistema_lxd", "sistema")
LOOP = "densidad"  # its round rows carry the name (results.round_metric)
# Each gzip of the phase compresses the data file's first INPUT_MIB MiB: half the workloads' part
# (workload.INPUT_MIB), because a run makes 126 of them (N = 1, 2 and 4 per kind and round) and a
# throughput in MB/s needs no more; the page says what each compressed (view/sistema_vm_densidad.entrada).
INPUT_MIB = 2
# How much longer an emulated VM takes to boot, per time its cores are overcommitted by the vCPUs that
# boot at once (boot_timeout). Measured on this 2-core machine under `make setup`'s load (load average 8-14),
# the course's VM with 2 vCPUs and 384 MiB under TCG: alone 8.3, 10.3 and 11.2 s; 4 at once (8 vCPUs on 2
# cores, 4×) 18.8-23.7 s, the slowest 2.3× the median alone, so 2.3 / 4 ≈ 0.6 per time overcommitted: the
# default phase waits 90 × 0.6 × 4 = 216 s for each of its VMs (a boot takes ~24 s there). A VM that prints
# nothing by then is hung, not slow: a recorded failure (start_all).
BOOT_SLOWDOWN = 0.6


def cores() -> int:
    """The CPUs this process may run on (what the instances share)."""
    return len(os.sched_getaffinity(0))


def levels(n_cores: int, most: int, cpus: int = DENSITY_CPUS) -> list[int]:
    """The N of each overcommit level (N·cpus ÷ cores = 1, 2, 4 of OVERCOMMIT), none above `most`; 1 is
    always there (the baseline every level is compared with). [] when `most` < 1 (no phase)."""
    if most < 1:
        return []
    wanted = {max(1, math.ceil(f * n_cores / cpus)) for f in OVERCOMMIT}
    return sorted({1} | {n for n in wanted if n <= most})


def overcommit(n: int, n_cores: int, cpus: int = DENSITY_CPUS) -> float:
    """CPUs assigned to N instances ÷ the machine's cores."""
    return n * cpus / n_cores


def density_arms(arms: list[Arm]) -> list[Arm]:
    """The arms of the phase: the application container, one system container, the (busybox) VM."""
    by_kind = {a.kind: a for a in arms}
    system = next((by_kind[k] for k in SYSTEM_KINDS if k in by_kind), None)
    return [a for a in (by_kind.get("aplicacion"), system, by_kind.get("vm")) if a is not None]


def at_once(fn, items: list) -> list:
    """fn(item) for every item at the same moment (threads released together), results in order."""
    if not items:
        return []
    gate = threading.Barrier(len(items))

    def go(item):
        gate.wait()
        return fn(item)

    with ThreadPoolExecutor(max_workers=len(items)) as pool:
        return list(pool.map(go, items))


def throughput_mb_s(gzip_ms: float, mib: int = INPUT_MIB) -> float:
    """MB/s of one gzip of `mib` MiB of the course's data file."""
    return mib * MB / 1e6 / (gzip_ms / 1000)


def gzip_rows(group: list, ns: list[int]) -> list[tuple[str, float, str]]:
    """One round of one kind: for each N (in a random order), gzip in its first N instances at once;
    the mean MB/s per instance and the N together's."""
    rows = []
    for n in random.sample(ns, len(ns)):
        rates = [throughput_mb_s(ms) for ms in at_once(lambda inst: inst.timed_gzip(INPUT_MIB), group[:n])]
        rows.append((level_metric(DENSIDAD_INSTANCIA, n), round(sum(rates) / n, 4), "MB/s"))
        rows.append((level_metric(DENSIDAD_TOTAL, n), round(sum(rates), 4), "MB/s"))
    return rows


def boot_timeout(n_vms: int, n_cores: int, cpus: int = DENSITY_CPUS) -> float:
    """Seconds a VM of the phase may take to print its marker when `n_vms` emulated VMs of `cpus` vCPUs
    each boot at once on `n_cores`: vm.BOOT_TIMEOUT (one VM alone on a loaded machine) times how many
    times the cores are overcommitted by their vCPUs (BOOT_SLOWDOWN: measured), never less than alone."""
    return vm.BOOT_TIMEOUT * max(1.0, BOOT_SLOWDOWN * n_vms * cpus / n_cores)


def failure(arm: Arm, i: int, top: int, exc: BaseException, timeout: float | None) -> dict:
    """An instance of the phase that did not come up: what meta.json keeps of it (Spanish reason)."""
    if isinstance(exc, TimeoutError) and timeout:
        why = f"no imprimió «{READY}» en {timeout:.0f} s"
    else:
        why = f"falló al arrancar: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}"
    return {"tipo": arm.variant, "instancia": i, "de": top, "motivo": why}


def start_all(ctx: RunContext, groups: dict[Arm, list], log: Log = lambda line: None) -> list[dict]:
    """Start every instance of every kind at once (not timed): each VM's QEMU launched from this thread
    first (a VM's QEMU dies with the thread that spawned it: measure.Child's parent-death signal follows
    the thread, not the process), the containers and LXD's meanwhile from threads of their own, then each
    VM waited for, its time-out sized for the VMs booting at once (boot_timeout). One kind after another,
    one instance after another, the quiet run spent about 20 s here. An instance that does not come up
    is stopped and left out of its group (the phase goes on with the others): the failures are returned,
    recorded in meta.json and said in the log. The limits of the others are then read back and recorded."""
    everyone = [(arm, i, inst) for arm, group in groups.items() for i, inst in enumerate(group, 1)]
    vms = [(arm, i, inst) for arm, i, inst in everyone if isinstance(inst, VMInstance)]
    timeout = boot_timeout(len(vms), cores(), max((inst.cpus for _, _, inst in vms), default=1))
    errors: dict[int, tuple[BaseException, float | None]] = {}

    def attempt(item, fn, wait: float | None = None) -> None:
        try:
            fn(item[2])
        except Exception as exc:  # noqa: BLE001 - one instance down: recorded, the phase goes on
            errors[id(item[2])] = (exc, wait)

    for item in vms:
        attempt(item, lambda inst: inst.launch())
    at_once(lambda item: attempt(item, lambda inst: inst.start()), [x for x in everyone if x not in vms])
    for item in vms:
        if id(item[2]) not in errors:
            attempt(item, lambda inst: inst.start(timeout), timeout)
    sizes, failed = {arm: len(group) for arm, group in groups.items()}, []
    for arm, i, instance in everyone:
        if id(instance) not in errors:
            continue
        exc, wait = errors[id(instance)]
        failed.append(failure(arm, i, sizes[arm], exc, wait))
        groups[arm].remove(instance)
        try:
            instance.stop()
        except Exception:  # noqa: BLE001, S110 - the run's clean-up removes whatever is left of it
            pass
    for entry in failed:
        log(
            f"[AVISO] Densidad: la instancia {entry['instancia']} de {entry['de']} ({kind_label(entry['tipo'])}) "
            f"{entry['motivo']}; se quitó y la fase sigue con las demás."
        )
    densidad = ctx.run.meta.setdefault("densidad", {})
    densidad["no_arrancaron"] = failed
    densidad["espera_vm_s"] = round(timeout) if vms else None
    for arm, group in groups.items():
        files = ""
        for i, instance in enumerate(group, 1):
            limits = instance.limits()
            cpus = float("nan") if limits.cpus is None else round(limits.cpus, 3)
            memory = float("nan") if limits.memory is None else round(limits.memory / MB, 1)
            ctx.record(arm, DENSIDAD_CPUS, cpus, "CPU", rep=i)
            ctx.record(arm, DENSIDAD_MEMORIA, memory, "MB", rep=i)
            files = limits.files
        if group:
            densidad.setdefault("limites_leidos_de", {})[arm.variant] = files
    ctx.run.update_meta(densidad=densidad)
    return failed


def run(ctx: RunContext, cfg, arms: list[Arm], make, progress: Progress, log: Log) -> None:
    """The phase (nothing when cfg.densidad is 0 or no kind takes part); every instance is stopped at the
    end, and by the run's clean-up on error."""
    chosen = density_arms(arms)
    n_cores = cores()
    ns = levels(n_cores, cfg.densidad)
    if not chosen or not ns:
        return
    top = ns[-1]
    assigned = ", ".join(f"N={n}: {overcommit(n, n_cores):g}×" for n in ns)
    log(
        f"Densidad: hasta {top} instancias de cada tipo a la vez, cada una con {DENSITY_CPUS} CPU y "
        f"{cfg.vm_memory_mb} MiB como límite, en una máquina de {n_cores} núcleos (CPU asignadas ÷ núcleos: "
        f"{assigned}); gzip en las N a la vez, y luego tocar y liberar {cfg.memoria_mb} MiB en las {top}."
    )
    if overcommit(top, n_cores) < OVERCOMMIT[-1]:
        log(
            f"Con DENSIDAD = {cfg.densidad} no se llega a sobrecomprometer {OVERCOMMIT[-1]}× las CPU de esta "
            "máquina: sube DENSIDAD para verlo."
        )
    ctx.run.update_meta(
        densidad={
            **ctx.run.meta.get("densidad", {}),
            "niveles": ns,
            "nucleos": n_cores,
            "cpus_por_instancia": DENSITY_CPUS,
            "memoria_limite_mb": cfg.vm_memory_mb,
            "sobrecompromiso": {str(n): overcommit(n, n_cores) for n in ns},
            "entrada_mb": INPUT_MIB,
        }
    )
    groups: dict[Arm, list] = {}
    try:
        for arm in chosen:
            group = groups.setdefault(arm, [])  # stopped below whatever happens
            group.extend(
                make(arm, "densidad", cpus=DENSITY_CPUS, memory_mb=cfg.vm_memory_mb) for _ in range(top)
            )
        progress(0, 1, f"arrancando a la vez las {top} instancias de cada tipo")
        start_all(ctx, groups, log)
        up = [arm for arm in chosen if groups[arm]]  # a kind none of whose instances came up: left out
        measure_rounds(
            ctx,
            up,
            # each kind at the levels its instances that came up can fill
            measure=lambda arm: gzip_rows(groups[arm], [n for n in ns if n <= len(groups[arm])]),
            warmup=0,
            progress=progress,
            loop=LOOP,
            own_load=True,  # N instances busy at once: the load is the phase's, not the machine's
        )
        progress(0, 1, f"toca y libera {cfg.memoria_mb} MiB en las {top} de cada tipo a la vez")
        everyone = [
            (arm, i, instance) for arm, group in groups.items() for i, instance in enumerate(group, 1)
        ]
        freed = at_once(lambda item: memory_given_back(item[2], cfg.memoria_mb), everyone)
        for (arm, i, _), figures in zip(everyone, freed, strict=True):
            ctx.record(arm, DENSIDAD_DESPUES, round(float(figures[DESPUES]), 4), "MB", rep=i)
            ctx.record(arm, DENSIDAD_RETENIDA, round(float(figures[RETENIDA]), 4), "%", rep=i)
    finally:
        for group in groups.values():
            at_once(lambda inst: inst.stop(), group)
