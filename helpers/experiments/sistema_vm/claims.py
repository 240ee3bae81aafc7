"""The Sysbox post's claims, declared once, and claims(df, meta): each judged by a verdict builder.

A VM measured under emulation (TCG) says nothing of an accelerated VM's speed: its speed claims are
«no comparable» here (the class comparison decides them, with the machines that have KVM).
"""

from __future__ import annotations

import pandas as pd

from ... import stats
from ..verdict import Claim, Said, estimate, missing, not_comparable, ratio
from .analysis import arm_values, vm_variant
from .kinds import (
    ARRANQUE,
    BASELINE,
    DISCO,
    DISCO_ESCRITO,
    FIO,
    GZIP,
    HOST_RUN,
    LXD_COW,
    NESTED,
    RETENIDA,
    RUN_MOTOR,
    SOURCE,
    is_emulated,
    kind_label,
)

PROVISION = "Los contenedores de sistema se aprovisionan unas 10 veces más rápido que las VMs."
GZIP_ALIKE = (
    "El trabajo de CPU (gzip) rinde casi igual en un contenedor, en un contenedor de sistema y en una VM."
)
DEFER = (
    "La VM de esta máquina es emulada (TCG, sin KVM que funcione): su velocidad no dice nada de "
    "una VM acelerada. Lo decide la comparación de la clase, con las máquinas que tienen KVM."
)
DEFER_GZIP = DEFER + " La proporción medida es el costo de emular la CPU, no el de una VM."
EMULATED_NOTE = "Medido con una VM emulada (TCG)."

ARRANQUE_10X = Said(
    "arranque_10x",
    PROVISION,
    SOURCE,
    claimed=10.0,
    kind="about",
    quantity="arranque hasta «listo», VM / contenedor de sistema (busybox init)",
    unit="x",
)
ARRANQUE_10X_SYSTEMD = Said(
    "arranque_10x_systemd",
    PROVISION + " (systemd en los dos lados)",
    SOURCE,
    claimed=10.0,
    kind="about",
    quantity="arranque hasta «listo», VM / contenedor de sistema (systemd)",
    unit="x",
)
VM_RETIENE_MEMORIA = Said(
    "vm_retiene_memoria",
    "Las VMs se quedan con la memoria que el sistema huésped ya liberó.",
    SOURCE,
    claimed=100.0,
    kind="about",
    quantity="memoria liberada que el host no recupera, VM",
    unit="%",
)
CONTENEDOR_DEVUELVE_MEMORIA = Said(
    "contenedor_devuelve_memoria",
    "En un contenedor, la memoria liberada vuelve al host de inmediato.",
    SOURCE,
    claimed=0.0,
    kind="no_difference",
    quantity="memoria liberada que el host no recupera, contenedor",
    unit="%",
)
VM_DISCO_650 = Said(
    "vm_disco_650",
    "Cada VM añade unos 650 MB de disco, aunque todas partan de la misma imagen maestra.",
    SOURCE,
    claimed=650.0,
    kind="about",
    quantity="disco que añade cada VM",
    unit="MB",
)
CONTENEDOR_DISCO_POCOS_MB = Said(
    "contenedor_disco_pocos_mb",
    "Cada contenedor añade solo unos pocos MB de disco.",
    SOURCE,
    claimed=10.0,
    kind="at_most",
    quantity="disco que añade cada contenedor",
    unit="MB",
)
SIN_PENALIZACION = Said(
    "sistema_sin_penalizacion",
    "Reforzar el aislamiento de un contenedor (contenedor de sistema, espacio de usuarios) no cuesta rendimiento.",
    SOURCE,
    claimed=1.0,
    kind="no_difference",
    quantity="gzip, contenedor de sistema LXD / contenedor de aplicación",
    unit="x",
)
ARRANQUE_10X_LXD = ARRANQUE_10X.but(
    key="arranque_10x_lxd",
    statement=PROVISION + " (LXD con systemd)",
    quantity="arranque hasta «listo», VM / contenedor de sistema LXD (systemd)",
)
SIN_PENALIZACION_DISCO = SIN_PENALIZACION.but(
    key="sistema_sin_penalizacion_disco",
    quantity="IOPS de fio (E/S directa), contenedor de sistema LXD / contenedor de aplicación",
)
ANIDADO_GZIP = Said(
    "anidado_gzip",
    "Un contenedor dentro de un contenedor de sistema hace el trabajo de CPU (gzip) casi igual que uno en el host.",
    SOURCE,
    claimed=1.0,
    kind="no_difference",
    quantity="gzip, contenedor anidado en LXD / contenedor de aplicación",
    unit="x",
)
ANIDADO_DISCO = Said(
    "anidado_disco",
    "Con una carga de disco, un contenedor dentro de un contenedor de sistema rinde casi igual que uno en el host.",
    SOURCE,
    claimed=1.0,
    kind="no_difference",
    quantity="IOPS de fio (E/S directa), contenedor anidado en LXD / contenedor de aplicación",
    unit="x",
)
VM_DISCO_LENTO = Said(
    "vm_disco_lento",
    "Con una carga de disco, un contenedor dentro de una VM rinde hasta un 40 % menos.",
    SOURCE,
    claimed=0.6,
    kind="range",
    bounds=(0.6, 0.95),
    quantity="IOPS de fio (E/S directa), VM / contenedor de aplicación",
    note=(
        "«Hasta un 40 % menos» lo leemos como más lento que «casi igual» (por debajo de 0.95×) y no más de "
        "un 40 % (desde 0.6×)."
    ),
    unit="x",
)
DEFER_DISCO = DEFER + " Además, aquí fio corre en la VM misma, no en un contenedor dentro de ella."
ANIDADO_17 = Said(
    "anidado_17",
    "Un contenedor dentro de un contenedor de sistema rinde un 17 % menos (y dentro de una VM, un 65 % menos aún).",
    SOURCE,
    claimed=1.17,
    kind="percent_about",
    quantity="el mismo «run --rm … echo ok», anidado en LXD / en el host",
    unit="x",
)
ANIDADO_NO_COMPARABLE = (
    "La cifra del artículo es de red (iperf a través de un puente más); aquí ninguna instancia tiene red. "
    "Lo medido es el arranque de un contenedor anidado frente al mismo motor en el host: su proporción "
    "está en la tabla del escenario (3), como lectura propia, no como veredicto sobre el 17 %."
)
DISCO_40 = Said(
    "disco_40",
    "Con Sysbox CE, el disco de un contenedor anidado en un contenedor de sistema sube a cerca del 40 % del de una VM.",
    SOURCE,
    claimed=0.4,
    kind="about",
    quantity="disco por instancia, contenedor de sistema LXD con motor dentro / VM",
    unit="x",
)
DENSIDAD = Said(
    "densidad",
    "Con cargas de E/S caben el doble de contenedores de sistema que de VMs por servidor (y un 30 % más con cargas de CPU).",
    SOURCE,
    claimed=2.0,
    kind="about",
    quantity="instancias por servidor con el mismo rendimiento, contenedores de sistema / VMs",
    unit="x",
)
DENSIDAD_NO_COMPARABLE = (
    "Decidirlo pide cargar un servidor hasta que el rendimiento caiga, con VMs aceleradas: aquí hay dos "
    "núcleos compartidos y la VM es emulada. Lo que sí se ve aquí es la memoria en reposo de cada instancia "
    "(la del daemon de LXD, aparte); la comparación de la clase junta las máquinas que pueden decidirlo."
)
DISCO_NO_COMPARABLE = (
    "La VM del curso es un busybox que casi no escribe en su overlay qcow2; la del artículo, un Ubuntu "
    "completo que añade unos 650 MB. Del lado de LXD, lo que ocupa cada instancia depende del pool: en «dir» "
    "es una copia entera de su imagen; en un pool con copia en escritura (btrfs), solo lo que la instancia "
    "escribe. La tabla de resultados da las cifras de esta corrida."
)
_GZIP = Said("gzip", GZIP_ALIKE, SOURCE, claimed=1.0, kind="no_difference", unit="x")
GZIP_CLAIMS = {  # by the variant measured: the key is gzip_<variant>
    variant: _GZIP.but(key=f"gzip_{variant}", quantity=f"gzip, {kind_label(variant)} / bare metal")
    for variant in ("sistema", "aplicacion", "vm_kvm", "vm_emulada")
}


SAID = (
    ARRANQUE_10X,
    ARRANQUE_10X_SYSTEMD,
    ARRANQUE_10X_LXD,
    VM_RETIENE_MEMORIA,
    CONTENEDOR_DEVUELVE_MEMORIA,
    VM_DISCO_650,
    CONTENEDOR_DISCO_POCOS_MB,
    SIN_PENALIZACION,
    SIN_PENALIZACION_DISCO,
    ANIDADO_GZIP,
    ANIDADO_DISCO,
    VM_DISCO_LENTO,
    ANIDADO_17,
    DISCO_40,
    DENSIDAD,
    *GZIP_CLAIMS.values(),
)


def _present(df: pd.DataFrame | None) -> set:
    return set(df["variant"]) if df is not None and not df.empty else set()


def _with_kind(said: Said, variant: str) -> Said:
    return said.but(quantity=f"{said.quantity} ({kind_label(variant)})")


def _provision(said: Said, df: pd.DataFrame, vm_variant_: str, system_variant: str, init: str) -> Claim:
    detail = {"variante_vm": vm_variant_, "emulada": is_emulated(vm_variant_), "init": init}
    said = _with_kind(said, vm_variant_)
    if is_emulated(vm_variant_):
        return not_comparable(said, DEFER, detail)
    return ratio(
        said, arm_values(df, ARRANQUE, vm_variant_), arm_values(df, ARRANQUE, system_variant), detail=detail
    )


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    present = _present(df)
    vmv = vm_variant(df)
    out: list[Claim] = []

    # Provisioning: system containers 10x faster than VMs (busybox init on both sides; systemd if measured)
    if vmv and "sistema" in present:
        out.append(_provision(ARRANQUE_10X, df, vmv, "sistema", "busybox init"))
    else:
        out.append(missing(ARRANQUE_10X))
    sd_vm = next((v for v in ("vm_systemd_kvm", "vm_systemd_emulada") if v in present), None)
    if sd_vm and "sistema_systemd" in present:
        out.append(_provision(ARRANQUE_10X_SYSTEMD, df, sd_vm, "sistema_systemd", "systemd"))

    # Real system containers (LXD): no penalty (CPU and disk), provisioning, nested cost, storage
    for said, metric in ((SIN_PENALIZACION, GZIP), (SIN_PENALIZACION_DISCO, FIO)):
        out += _against_application(said, df, metric, "sistema_lxd", present)
    if vmv and "sistema_lxd" in present:
        lxd_variant = LXD_COW if LXD_COW in present else "sistema_lxd"
        said = ARRANQUE_10X_LXD.but(quantity=f"arranque hasta «listo», VM / {kind_label(lxd_variant)}")
        out.append(_provision(said, df, vmv, lxd_variant, "systemd (LXD)"))
    for said, metric in ((ANIDADO_GZIP, GZIP), (ANIDADO_DISCO, FIO)):
        out += _against_application(said, df, metric, NESTED, present)
    if vmv and (df["metric"] == FIO).any():
        if is_emulated(vmv):
            out.append(not_comparable(VM_DISCO_LENTO, DEFER_DISCO, {"tipo": vmv, "emulada": True}))
        else:
            out += _against_application(VM_DISCO_LENTO, df, FIO, vmv, present)
    if "anidado_lxd" in present:
        detail = {}
        for engine in sorted(set(df.loc[df["variant"] == HOST_RUN, "engine"])):
            nested, host = _engine_values(df, engine, "anidado_lxd"), _engine_values(df, engine, HOST_RUN)
            if nested.size and host.size:
                value, low, high = stats.ratio_ci(nested, host)
                detail[f"{engine}_anidado_x_host"] = [round(value, 3), round(low, 3), round(high, 3)]
        out.append(not_comparable(ANIDADO_17, ANIDADO_NO_COMPARABLE, detail))
        detail = {}
        for key, metric, variant in (
            ("anidado_lxd_escrito_mb", DISCO_ESCRITO, NESTED),
            ("sistema_lxd_dir_mb", DISCO, "sistema_lxd"),
            ("sistema_lxd_cow_mb", DISCO, LXD_COW),
            ("vm_mb", DISCO, vmv),
        ):
            values = arm_values(df, metric, variant) if variant else []
            if len(values):
                detail[key] = round(float(stats.summarize(values).median), 2)
        out.append(not_comparable(DISCO_40, DISCO_NO_COMPARABLE, detail))

    if "sistema_lxd" in present and vmv:
        out.append(not_comparable(DENSIDAD, DENSIDAD_NO_COMPARABLE, {"vm": vmv}))

    # Memory the guest freed stays with the VM; a container gives it back
    kind = "sistema" if "sistema" in present else "aplicacion"
    for said, variant in ((VM_RETIENE_MEMORIA, vmv), (CONTENEDOR_DEVUELVE_MEMORIA, kind)):
        out.append(_judged_median(said, df, RETENIDA, variant, present))

    # Disk per instance
    for said, variant in ((VM_DISCO_650, vmv), (CONTENEDOR_DISCO_POCOS_MB, kind)):
        out.append(_judged_median(said, df, DISCO, variant, present))

    # CPU-bound work: alike in every kind (the VM only with KVM)
    for variant in [k for k in ("sistema", "aplicacion") if k in present][:1]:
        out.append(
            ratio(GZIP_CLAIMS[variant], arm_values(df, GZIP, variant), arm_values(df, GZIP, BASELINE[1]))
        )
    if vmv:
        said = GZIP_CLAIMS[vmv]
        if is_emulated(vmv):
            out.append(not_comparable(said, DEFER_GZIP, {"tipo": vmv, "emulada": True}))
        else:
            out.append(
                ratio(
                    said, arm_values(df, GZIP, vmv), arm_values(df, GZIP, BASELINE[1]), detail={"tipo": vmv}
                )
            )
    return out


def _against_application(
    said: Said, df: pd.DataFrame, metric: str, variant: str, present: set
) -> list[Claim]:
    """`variant` against the application container (scenario 1) on one workload: [] when `variant` was
    not in the run, «sin datos» when the other side or the workload is missing."""
    if variant not in present:
        return []
    mine, theirs = arm_values(df, metric, variant), arm_values(df, metric, "aplicacion")
    if not (mine.size and theirs.size):
        return [missing(said)]
    return [ratio(said, mine, theirs)]


def _judged_median(said: Said, df: pd.DataFrame, metric: str, variant: str | None, present: set) -> Claim:
    """One kind's median of `metric` (bootstrap IC) against the claim; an emulated VM's figure says so
    in its note. Not marked «inestable» by its spread: these figures sit near zero (a container's
    retained memory and disk), where a small spread dwarfs the median without meaning anything."""
    if not variant or variant not in present:
        return missing(said)
    values = arm_values(df, metric, variant)
    if not values.size:
        return missing(said)
    said = _with_kind(said, variant)
    if is_emulated(variant):
        said = said.but(note=EMULATED_NOTE)
    s = stats.summarize(values)
    detail = {"tipo": variant, "emulada": is_emulated(variant)}
    return estimate(said, s.median, s.ci_low, s.ci_high, n=s.n, detail=detail)


def _engine_values(df: pd.DataFrame, engine: str, variant: str):
    sel = df[(df["metric"] == RUN_MOTOR) & (df["engine"] == engine) & (df["variant"] == variant)]
    return sel["value"].astype(float).to_numpy()
