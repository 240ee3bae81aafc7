"""The Sysbox post's claims, declared once, and claims(df, meta): each judged by a verdict builder.

Each claim names its section of the post (`where`) and, where it gives a figure, its row of
data/reference/sistema_vm.csv (`ref`). Where the course's setup cannot reproduce the post's (a busybox
microVM for its Ubuntu VMs, an idle instance for its 16 loaded ones) the claim is «no comparable», with
the reason and what would change. A VM measured under emulation (TCG) says nothing of an accelerated
VM's speed: its speed claims are «no comparable» here; the class comparison (notebook 90) judges the keys
in DEFERRED_TO_CLASS on the machines whose run used KVM, with this module's `claims`.
Arms measured in the same rounds (provisioning, workloads) are paired by round (Series indexed by `rep`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ..figures import Custom, Median, NotComparable, Ratio, Sel, judge_all
from ..verdict import Claim, Said, missing, not_comparable, outcome, ref
from .analysis import arm_values, by_round, gzip_baseline, vm_variant
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
    PSS,
    RETENIDA,
    RUN_MOTOR,
    SOURCE,
    is_emulated,
    kind_label,
)

PROVISION = "Los contenedores de sistema se aprovisionan unas 10 veces más rápido que las VMs."
GZIP_ALIKE = (
    "El trabajo de CPU (gzip) rinde casi igual en un contenedor en el host, dentro de un contenedor de "
    "sistema y dentro de una VM, mientras no se sobrecomprometan las CPU."
)
DEFER = (
    "La VM de esta máquina es emulada (TCG, sin KVM que funcione): su velocidad no dice nada de "
    "una VM acelerada. Lo decide la comparación de la clase, con las máquinas que tienen KVM."
)
DEFER_GZIP = DEFER + " La proporción medida es el costo de emular la CPU, no el de una VM."
GZIP_IN_VM = "Aquí gzip corre en la VM misma; en el artículo, en un contenedor dentro de la VM."
EMULATED_NOTE = "Medido con una VM emulada (TCG)."
W_WORKLOAD = "sección «Workload Performance»"
W_MEMORY = "sección «Memory Utilization»"
W_STORAGE = "sección «Storage Utilization»"
W_PROVISION = "sección «Provisioning Time»"
SETUP = (
    "El artículo: Ubuntu 20.04 en cada instancia (VMs con Vagrant + libvirt + KVM, contenedores de sistema "
    "con Sysbox EE), 2 CPU y 2 GB cada una, cargas de Phoronix. Aquí: busybox (o Debian con systemd), "
    "QEMU microvm, sin red, en dos núcleos compartidos."
)

ARRANQUE_10X = Said(
    "arranque_10x",
    PROVISION,
    SOURCE,
    claimed=10.0,
    kind="about",
    quantity="arranque hasta «listo», VM / contenedor de sistema (busybox init)",
    unit="x",
    where=W_PROVISION,
    ref=ref(metric="arranque_vm_vs_sistema"),
)
ARRANQUE_10X_SYSTEMD = Said(
    "arranque_10x_systemd",
    PROVISION.replace("sistema se", "sistema [aquí, con systemd en los dos lados] se"),
    SOURCE,
    claimed=10.0,
    kind="about",
    quantity="arranque hasta «listo», VM / contenedor de sistema (systemd)",
    unit="x",
    where=W_PROVISION,
    ref=ref(metric="arranque_vm_vs_sistema"),
)
# Memory given back is a mechanism (the hypervisor does not see the guest free its pages), observed
# once per instance: an outcome, each time the block is touched and freed. Thresholds: more than half of
# the freed block still held by the host (VM); less than 5 % (container, the margin of «casi igual»).
VM_KEEPS_ABOVE, CONTAINER_GIVES_BELOW = 50.0, 5.0
VM_RETIENE_MEMORIA = Said(
    "vm_retiene_memoria",
    "Las VMs se quedan con la memoria que el sistema huésped ya liberó: el host la asignó y nunca la recupera.",
    SOURCE,
    kind="observed",
    quantity=f"el host sigue con más del {VM_KEEPS_ABOVE:.0f} % del bloque que el huésped liberó",
    unit="",
    where=W_MEMORY,
)
CONTENEDOR_DEVUELVE_MEMORIA = Said(
    "contenedor_devuelve_memoria",
    "En un contenedor, la memoria liberada vuelve al host de inmediato.",
    SOURCE,
    kind="observed",
    quantity=f"el host recupera el bloque liberado (retiene menos del {CONTAINER_GIVES_BELOW:.0f} %)",
    unit="",
    where=W_MEMORY,
)
MEMORIA_16X = Said(
    "memoria_16x",
    "Con esta carga en particular, 16 contenedores de sistema usaron 2 GB de RAM del host y 16 VMs, 32 GB "
    "(16 veces más); el factor cambia según la carga.",
    SOURCE,
    claimed=16.0,
    kind="about",
    quantity="RAM del host con 16 instancias cargadas, VMs / contenedores de sistema",
    unit="x",
    where=W_MEMORY,
    ref=ref(metric="memoria_vm_vs_sistema"),
)
MEMORIA_NO_COMPARABLE = (
    "El artículo midió la RAM del host con 16 instancias de cada tipo corriendo su carga (2 GB de RAM "
    "asignados a cada una): las VMs se quedan con lo que su carga tocó y liberó. Aquí se mide la PSS de "
    "cada instancia en reposo, sin carga, con busybox: su proporción (en la tabla frente a la referencia) "
    "es otra cifra. Para decidir el 16× haría falta la misma carga en 16 instancias de cada tipo y la "
    "memoria usada del host con todas en marcha."
)
VM_DISCO_650 = Said(
    "vm_disco_650",
    "Cada VM añade unos 650 MB de disco aunque todas partan de la misma imagen maestra, porque la copia en "
    "escritura del disco virtual es mucho menos eficiente que la de los contenedores.",
    SOURCE,
    claimed=650.0,
    kind="about",
    quantity="disco que añade cada VM (650 MB ≈ 620 MiB)",
    unit="MB",
    where=W_STORAGE,
    ref=ref(metric="disco_vm"),
)
VM_DISCO_NO_COMPARABLE = (
    "El artículo culpa de sus 650 MB a la copia en escritura del disco virtual, mucho menos eficiente que la "
    "de los contenedores, en VMs Ubuntu 20.04 completas (Vagrant + libvirt) que corrían sus cargas. La del "
    "curso es una microVM con busybox que casi no escribe en su overlay qcow2: su cifra (en la tabla frente "
    "al artículo) es otra medida. Lo que sí se ve aquí es el mecanismo, el overlay que crece con cada bloque "
    "que la VM escribe (ejercicio 4). Para juzgar los 650 MB harían falta VMs Ubuntu clonadas de una misma "
    "imagen maestra, con la misma carga que el artículo."
)
CONTENEDOR_DISCO_POCOS_MB = Said(
    "contenedor_disco_pocos_mb",
    "Cada contenedor añade solo unos pocos MB de disco.",
    SOURCE,
    claimed=10.0,
    kind="at_most",
    quantity="disco que añade cada contenedor («unos pocos MB»: como mucho 10 MiB, lectura nuestra)",
    unit="MB",
    where=W_STORAGE,
)
SIN_PENALIZACION = Said(
    "sistema_sin_penalizacion",
    "Reforzar el aislamiento de un contenedor (contenedor de sistema, espacio de usuarios) no cuesta rendimiento.",
    SOURCE,
    claimed=1.0,
    kind="no_difference",
    quantity="gzip, contenedor de sistema LXD / contenedor de aplicación",
    unit="x",
    where="introducción y «Workload Performance»",
)
ARRANQUE_10X_LXD = ARRANQUE_10X.but(
    key="arranque_10x_lxd",
    statement=PROVISION.replace("sistema se", "sistema [aquí, de LXD con systemd] se"),
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
    where=W_WORKLOAD + " (gzip)",
)
ANIDADO_DISCO = Said(
    "anidado_disco",
    "Con una carga de disco, un contenedor dentro de un contenedor de sistema rinde casi igual que uno en el host.",
    SOURCE,
    claimed=1.0,
    kind="no_difference",
    quantity="IOPS de fio (E/S directa), contenedor anidado en LXD / contenedor de aplicación",
    unit="x",
    where=W_WORKLOAD + " (disco)",
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
    where=W_WORKLOAD + " (disco)",
)
DEFER_DISCO = DEFER + " Además, aquí fio corre en la VM misma, no en un contenedor dentro de ella."
ANIDADO_17 = Said(
    "anidado_17",
    "En red (iperf), un contenedor dentro de un contenedor de sistema rinde un 17 % menos, porque sus "
    "paquetes cruzan un puente de Docker más (y dentro de una VM, pierde un 65 % adicional).",
    SOURCE,
    claimed=1.17,
    kind="percent_about",
    quantity="el mismo «run --rm … echo ok», anidado en LXD / en el host",
    unit="x",
    where=W_WORKLOAD + " (red, iperf)",
)
ANIDADO_NO_COMPARABLE = (
    "La cifra del artículo es de red (iperf a través de un puente más); aquí ninguna instancia tiene red. "
    "Lo medido es el arranque de un contenedor anidado frente al mismo motor en el host: su proporción "
    "está en la tabla del escenario (3), como lectura propia, no como veredicto sobre el 17 %."
)
DISCO_40 = Said(
    "disco_40",
    "Con Sysbox CE (el artículo usó Sysbox EE y no lo muestra en su gráfico), el disco de un contenedor de "
    "sistema con contenedores dentro subiría a cerca del 40 % del de una VM.",
    SOURCE,
    claimed=0.4,
    kind="about",
    quantity="disco por instancia, contenedor de sistema LXD con motor dentro / VM",
    unit="x",
    where=W_STORAGE + " (la salvedad de Sysbox CE)",
)
DENSIDAD = Said(
    "densidad",
    "Con cargas de E/S caben el doble de contenedores de sistema que de VMs por servidor, con el mismo "
    "rendimiento (y un 30 % o más con cargas de CPU).",
    SOURCE,
    claimed=2.0,
    kind="about",
    quantity="instancias por servidor con el mismo rendimiento, contenedores de sistema / VMs",
    unit="x",
    where="sección «Server Consolidation» («Density» en el índice)",
    ref=ref(metric="consolidacion_io_vs_vm"),
)
DENSIDAD_NO_COMPARABLE = (
    "Decidirlo pide cargar un servidor hasta que el rendimiento caiga, con VMs aceleradas: aquí hay dos "
    "núcleos compartidos y la VM es emulada. Lo que sí se ve aquí es la memoria en reposo de cada instancia "
    "(la del daemon de LXD, aparte), que es una parte de la cuenta de cuántas caben, no su veredicto."
)
DISCO_NO_COMPARABLE = (
    "El 40 % es una estimación del artículo para Sysbox CE frente a VMs Ubuntu de unos 650 MB cada una; "
    "aquí no hay Sysbox, y la VM del curso es un busybox que casi no escribe en su overlay qcow2. Del lado de LXD, lo que ocupa cada instancia depende del pool: en «dir» "
    "es una copia entera de su imagen; en un pool con copia en escritura (btrfs), solo lo que la instancia "
    "escribe. La tabla de resultados da las cifras de esta corrida."
)
_GZIP = Said(
    "gzip",
    GZIP_ALIKE,
    SOURCE,
    claimed=1.0,
    kind="no_difference",
    unit="x",
    where=W_WORKLOAD + " (gzip, sin sobrecomprometer las CPU)",
    ref=ref(metric="gzip_sistema_vs_bare"),
)
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
    MEMORIA_16X,
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


# The keys notebook 90 judges on the machines whose run used KVM (helpers/clase/deferred.py).
DEFERRED_TO_CLASS = ("arranque_10x_systemd", "arranque_10x_lxd", "gzip_vm_kvm", "vm_disco_lento")
BUSYBOX_VM = (
    "La VM del curso es una microVM con busybox como init, y la del artículo un Ubuntu completo que arranca "
    "systemd y sus servicios: la proporción de esta corrida está en la tabla frente a la referencia, como "
    "lectura propia. Con systemd en los dos lados (añade «sistema_systemd» y «vm_systemd» a TIPOS) y KVM, "
    "la comparación se acerca a la del artículo y se juzga."
)


def _present(df: pd.DataFrame | None) -> set:
    return set(df["variant"]) if df is not None and not df.empty else set()


# The run's own variants (functions of the run, for Sel, detail and conditions)
def _vm(df, meta=None) -> str | None:
    return vm_variant(df)


def _sd_vm(df, meta=None) -> str | None:
    return next((v for v in ("vm_systemd_kvm", "vm_systemd_emulada") if v in _present(df)), None)


def _kind(df, meta=None) -> str:
    return "sistema" if "sistema" in _present(df) else "aplicacion"


def _lxd(df, meta=None) -> str:
    return LXD_COW if LXD_COW in _present(df) else "sistema_lxd"


def _has(*variants):
    """A condition: the run measured every one of `variants` (names, or functions of the run)."""

    def has(df, meta=None) -> bool:
        present = _present(df)
        return all((v(df, meta) if callable(v) else v) in present for v in variants)

    return has


def _emulated(variant):
    return lambda df, meta=None: (v := variant(df, meta)) is not None and is_emulated(v)


def _both(*conditions):
    return lambda df, meta=None: all(c(df, meta) for c in conditions)


def _not(condition):
    return lambda df, meta=None: not condition(df, meta)


def _arm(metric: str, variant) -> Sel:
    return Sel(metric=metric, variant=variant)


def _ratio_figure(df: pd.DataFrame, metric: str, num: str, den: str) -> list[float]:
    value, low, high = stats.ratio_ci(by_round(df, metric, num), by_round(df, metric, den)).triple
    return [value, low, high]


def _busybox(den: str, key: str, init: str):
    """The detail of a provisioning claim on the busybox VM: its ratio, shown, not judged."""
    return lambda df, meta=None: {
        "variante_vm": _vm(df),
        "emulada": is_emulated(_vm(df)),
        "init": init,
        key: _ratio_figure(df, ARRANQUE, _vm(df), den(df, meta) if callable(den) else den),
    }


def _provision(said: Said, vm, system, init: str, when) -> tuple[Said, Said]:
    """Systemd on both sides: the post's comparison, judged with KVM, deferred to the class under TCG."""
    detail = {"variante_vm": vm, "emulada": _emulated(vm), "init": init}
    return (
        said.but(figure=NotComparable(DEFER, detail=detail, when=_both(when, _emulated(vm)))),
        said.but(
            figure=Ratio(
                _arm(ARRANQUE, vm),
                _arm(ARRANQUE, system),
                detail=detail,
                when=_both(when, _not(_emulated(vm))),
            )
        ),
    )


def _against_application(said: Said, metric: str, variant, when=None) -> Said:
    """`variant` against the application container (scenario 1) on one workload, paired by round: no
    claim when `variant` was not in the run, «sin datos» when the other side or the workload is missing."""
    when = _both(_has(variant), when) if when else _has(variant)
    return said.but(figure=Ratio(_arm(metric, variant), _arm(metric, "aplicacion"), when=when))


def _nested_run_detail(df: pd.DataFrame, meta=None) -> dict:
    detail = {}
    for engine in sorted(set(df.loc[df["variant"] == HOST_RUN, "engine"])):
        nested, host = _engine_values(df, engine, "anidado_lxd"), _engine_values(df, engine, HOST_RUN)
        if nested.size and host.size:
            value, low, high = stats.ratio_ci(nested, host).triple
            detail[f"{engine}_anidado_x_host"] = [round(value, 3), round(low, 3), round(high, 3)]
    return detail


def _disk_detail(df: pd.DataFrame, meta=None) -> dict:
    detail = {}
    for key, metric, variant in (
        ("anidado_lxd_escrito_mb", DISCO_ESCRITO, NESTED),
        ("sistema_lxd_dir_mb", DISCO, "sistema_lxd"),
        ("sistema_lxd_cow_mb", DISCO, LXD_COW),
        ("vm_mb", DISCO, _vm(df)),
    ):
        values = arm_values(df, metric, variant) if variant else []
        if len(values):
            detail[key] = round(float(stats.summarize(values).median), 2)
    return detail


def _vm_disk_detail(df: pd.DataFrame, meta=None) -> dict:
    values, vmv = arm_values(df, DISCO, _vm(df)), _vm(df)
    return {
        "tipo": vmv,
        "emulada": is_emulated(vmv),
        **({"vm_mib": float(np.median(values))} if values.size else {}),
    }


def _lxd_provision(said: Said, df: pd.DataFrame, meta: dict | None) -> Claim:
    said = said.but(quantity=f"arranque hasta «listo», VM / {kind_label(_lxd(df))}")
    if _sd_vm(df):  # systemd on both sides: the post's comparison (one of the pair applies)
        pair = _provision(_with_kind(said, _sd_vm(df)), _sd_vm, _lxd, "systemd (LXD)", _has(_sd_vm))
        return judge_all(pair, df, meta)[0]
    detail = _busybox(_lxd, "vm_x_lxd", "busybox init (VM)")(df)
    return not_comparable(_with_kind(said, _vm(df)), BUSYBOX_VM, detail)


def _given_back(said: Said, df: pd.DataFrame, variant: str | None, happened) -> Claim:
    """The touch-and-free of each instance of `variant` as an observed outcome: did the host hold what
    the claim says (`happened(retained %)`) each time? An emulated VM's observation says so in its note
    (the mechanism is the hypervisor's, not the CPU's: emulation does not change it)."""
    if not variant or variant not in _present(df):
        return missing(said)
    kept = arm_values(df, RETENIDA, variant)
    if not kept.size:
        return missing(said)
    said = _with_kind(said, variant)
    if is_emulated(variant):
        said = said.but(note=EMULATED_NOTE)
    detail = {"tipo": variant, "emulada": is_emulated(variant), "retenida_pct": [float(v) for v in kept]}
    return outcome(said, [bool(happened(v)) for v in kept], detail=detail)


def _engine_values(df: pd.DataFrame, engine: str, variant: str):
    sel = df[(df["metric"] == RUN_MOTOR) & (df["engine"] == engine) & (df["variant"] == variant)]
    return sel["value"].astype(float).to_numpy()


def _gzip_den(variant: str):
    """The scenario a gzip figure is compared with: (1), unless it is (1) itself (then bare metal)."""
    return lambda df, meta=None: gzip_baseline(df) if variant != gzip_baseline(df) else BASELINE[1]


_VM_FIO, _LXD = (
    _both(_has(_vm), lambda df, meta=None: bool((df["metric"] == FIO).any())),
    _has(_vm, "sistema_lxd"),
)
_NEXT = _both(_has("aplicacion"), _not(_has("sistema")))  # the application container, when no system one
JUDGED = (
    ARRANQUE_10X.but(
        figure=NotComparable(
            BUSYBOX_VM, detail=_busybox("sistema", "vm_x_sistema", "busybox init"), needs=_has(_vm, "sistema")
        )
    ),
    *_provision(ARRANQUE_10X_SYSTEMD, _sd_vm, "sistema_systemd", "systemd", _has(_sd_vm, "sistema_systemd")),
    _against_application(SIN_PENALIZACION, GZIP, "sistema_lxd"),
    _against_application(SIN_PENALIZACION_DISCO, FIO, "sistema_lxd"),
    ARRANQUE_10X_LXD.but(figure=Custom(_lxd_provision, when=_LXD)),
    _against_application(ANIDADO_GZIP, GZIP, NESTED),
    _against_application(ANIDADO_DISCO, FIO, NESTED),
    VM_DISCO_LENTO.but(
        figure=NotComparable(
            DEFER_DISCO, detail={"tipo": _vm, "emulada": True}, when=_both(_VM_FIO, _emulated(_vm))
        )
    ),
    _against_application(VM_DISCO_LENTO, FIO, _vm, when=_both(_VM_FIO, _not(_emulated(_vm)))),
    ANIDADO_17.but(
        figure=NotComparable(ANIDADO_NO_COMPARABLE, detail=_nested_run_detail, when=_has("anidado_lxd"))
    ),
    DISCO_40.but(figure=NotComparable(DISCO_NO_COMPARABLE, detail=_disk_detail, when=_has("anidado_lxd"))),
    DENSIDAD.but(figure=NotComparable(DENSIDAD_NO_COMPARABLE, detail={"vm": _vm}, when=_LXD)),
    MEMORIA_16X.but(
        figure=NotComparable(
            MEMORIA_NO_COMPARABLE,
            detail={
                "vm": _vm,
                "emulada": _emulated(_vm),
                "pss_vm_x_sistema": lambda df, meta: _ratio_figure(df, PSS, _vm(df), "sistema"),
            },
            needs=_has(_vm, "sistema"),
        )
    ),
    VM_RETIENE_MEMORIA.but(
        figure=Custom(
            lambda said, df, meta: _given_back(said, df, _vm(df), lambda kept: kept > VM_KEEPS_ABOVE)
        )
    ),
    CONTENEDOR_DEVUELVE_MEMORIA.but(
        figure=Custom(
            lambda said, df, meta: _given_back(said, df, _kind(df), lambda kept: kept < CONTAINER_GIVES_BELOW)
        )
    ),
    VM_DISCO_650.but(figure=NotComparable(VM_DISCO_NO_COMPARABLE, detail=_vm_disk_detail, needs=_has(_vm))),
    CONTENEDOR_DISCO_POCOS_MB.but(
        figure=Median(
            Sel(metric=DISCO, variant=_kind, paired=False),
            needs=lambda df, meta: arm_values(df, DISCO, _kind(df)).size > 0,
        )
    ),
    GZIP_CLAIMS["sistema"].but(
        figure=Ratio(_arm(GZIP, "sistema"), _arm(GZIP, _gzip_den("sistema")), when=_has("sistema"))
    ),
    GZIP_CLAIMS["aplicacion"].but(
        figure=Ratio(_arm(GZIP, "aplicacion"), _arm(GZIP, _gzip_den("aplicacion")), when=_NEXT)
    ),
    GZIP_CLAIMS["vm_emulada"].but(
        figure=NotComparable(
            DEFER_GZIP,
            detail={"tipo": "vm_emulada", "emulada": True},
            when=lambda df, meta: _vm(df) == "vm_emulada",
        )
    ),
    GZIP_CLAIMS["vm_kvm"].but(
        note=GZIP_IN_VM,
        figure=Ratio(
            _arm(GZIP, "vm_kvm"),
            _arm(GZIP, lambda df, meta: gzip_baseline(df)),
            detail={"tipo": "vm_kvm"},
            when=_has("vm_kvm"),
        ),
    ),
)
# The kind of instance each claim was measured on, named in its quantity when the claim can be judged
_KIND_OF = {
    ARRANQUE_10X.key: _vm,
    ARRANQUE_10X_SYSTEMD.key: _sd_vm,
    VM_DISCO_650.key: _vm,
    CONTENEDOR_DISCO_POCOS_MB.key: _kind,
}


def _as_run(said: Said, df: pd.DataFrame, meta: dict | None) -> Said:
    """The declaration as this run measured it: the kind of instance, and what a gzip figure is over."""
    if said.key in _KIND_OF and (said.figure.needs is None or said.figure.needs(df, meta)):
        return _with_kind(said, _KIND_OF[said.key](df))
    variant = said.key.removeprefix("gzip_")
    if said.key.startswith("gzip_") and variant in GZIP_CLAIMS:
        den = _gzip_den(variant)(df) if variant in ("sistema", "aplicacion") else gzip_baseline(df)
        return said.but(quantity=f"gzip, {kind_label(variant)} / {kind_label(den)}")
    return said


def _with_kind(said: Said, variant: str) -> Said:
    return said.but(quantity=f"{said.quantity} [{kind_label(variant)}]")


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    return judge_all(JUDGED, df, meta, adapt=_as_run)
