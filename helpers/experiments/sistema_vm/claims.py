"""The Sysbox post's claims, each declared once with the figure it is judged on (`judge_all`), in the order
a run reports them; each names its section of the post (`where`) and, where it gives a figure, its row of
data/reference/sistema_vm.csv (`ref`). Where the course's setup cannot reproduce the post's (a busybox
microVM for its Ubuntu VMs, an idle instance for its 16 loaded ones) the claim is «no comparable», with
the reason and what would change. A VM measured under emulation (TCG) says nothing of an accelerated
VM's speed: its speed claims are «no comparable» here; the class comparison (notebook 90) judges the keys
in DEFERRED_TO_CLASS on the machines whose run used KVM, with this module's `claims`.
Arms measured in the same rounds (provisioning, workloads) are paired by round (Series indexed by `rep`).
A figure of the run's own instance (its VM, its container) is a function of the run, fn(df, meta).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ... import stats
from ..figures import Custom, Formula, Median, NotComparable, Outcome, Ratio, Sel, judge_all
from ..verdict import Claim, Said, ref
from . import kinds as k
from .analysis import arm_values, by_round, fit_level, gzip_baseline, overcommit_of, top_level, vm_variant

WORKLOAD, STORAGE = "sección «Workload Performance»", "sección «Storage Utilization»"
MEMORY = "sección «Memory Utilization»"
PROVISION = "Los contenedores de sistema se aprovisionan unas 10 veces más rápido que las VMs."
DEFER = (
    "La VM de esta máquina es emulada (TCG, sin KVM que funcione): su velocidad no dice nada de una VM "
    "acelerada. Lo decide la comparación de la clase, con las máquinas que tienen KVM."
)
BUSYBOX_VM = (
    "La VM del curso es una microVM con busybox como init, y la del artículo un Ubuntu completo que arranca "
    "systemd y sus servicios: la proporción de esta corrida está en la tabla frente a la referencia, como "
    "lectura propia. Con systemd en los dos lados (añade «sistema_systemd» y «vm_systemd» a TIPOS) y KVM, "
    "la comparación se acerca a la del artículo y se juzga."
)
# The keys notebook 90 judges on the machines whose run used KVM (helpers/clase/deferred.py).
DEFERRED_TO_CLASS = ("arranque_10x_systemd", "arranque_10x_lxd", "gzip_vm_kvm", "vm_disco_lento", "red_vm_65")
# The post's «~650MB» per VM, decimal MB, in the course's unit (MiB): data/reference/sistema_vm.csv
POST_VM_DISK_MIB = round(650e6 / k.MB, 1)
# Memory given back: more than half of the freed block still held by the host (VM); less than 5 % (a
# container, the margin of «casi igual»).
VM_KEEPS_ABOVE, CONTAINER_GIVES_BELOW = 50.0, 5.0


# ---------------------------------------------------------------- the run's own instances and conditions
vm, sd_vm = vm_variant, partial(vm_variant, kind="vm_systemd")  # its VM (KVM's first), or None


def present(df: pd.DataFrame | None) -> set:
    return set(df["variant"]) if df is not None and not df.empty else set()


def first(*variants: str):
    """The first of `variants` the run measured, else the last."""
    return lambda df, meta=None: next((v for v in variants if v in present(df)), variants[-1])


container, lxd = first("sistema", "aplicacion"), first(k.LXD_COW, "sistema_lxd")


def at(variant, df, meta=None):
    return variant(df, meta) if callable(variant) else variant


def has(*variants):
    """A condition: the run measured every one of `variants` (names, or functions of the run)."""
    return lambda df, meta=None: all(at(v, df, meta) in present(df) for v in variants)


def measured(metric: str, variant):
    return lambda df, meta=None: arm_values(df, metric, at(variant, df, meta)).size > 0


def emulated(variant):
    return lambda df, meta=None: (v := variant(df, meta)) is not None and k.is_emulated(v)


def shown(metric: str, num, den):
    """num / den of `metric` paired by round, [value, low, high]: a figure a view shows, not judged."""
    return lambda df, meta=None: list(
        stats.ratio_ci(by_round(df, metric, at(num, df)), by_round(df, metric, at(den, df))).triple
    )


# ---------------------------------------------------------------- the figures' shapes
def on(variant, figure, words: str = "{quantity} [{kind}]", **options) -> Custom:
    """`figure`, measured on the instance variant(df, meta), which the quantity names (`words`); an
    emulated VM's says so in its note (a «no comparable» gives its reason instead)."""

    def build(said: Said, df, meta) -> list[Claim]:
        v = variant(df, meta)
        note = "Medido con una VM emulada (TCG)." if k.is_emulated(v) else said.note
        said = said.but(quantity=words.format(quantity=said.quantity, kind=k.kind_label(v)), note=note)
        return judge_all([said.but(figure=figure)], df, meta)

    return Custom(build, **options)


def deferred(vm_of, reason: str, detail: dict, figure, **options) -> Custom:
    """`figure` on a VM with KVM; on an emulated one, «no comparable» (notebook 90 judges it on KVM's)."""
    no = NotComparable(reason, detail=detail)
    return Custom(
        lambda said, df, meta: judge_all([said.but(figure=no if emulated(vm_of)(df) else figure)], df, meta),
        **options,
    )


def ratio(metric: str, num, den, **options) -> Ratio:
    return Ratio(Sel(metric=metric, variant=num), Sel(metric=metric, variant=den), **options)


def over_app(metric: str, variant) -> Ratio:
    """`variant` / the application container (scenario 1) on one workload, paired by round: no claim
    when `variant` was not in the run, «sin datos» when the other side or the workload is missing."""
    return ratio(metric, variant, "aplicacion", when=has(variant))


def provision(vm_of, system, init: str, shown_as: str = "", **options) -> Custom:
    """VM / system container to «listo». The busybox VM's ratio is shown (`shown_as`), not judged; with
    systemd on both sides it is the post's comparison: judged with KVM, deferred to the class under TCG."""
    detail = {"variante_vm": vm_of, "emulada": emulated(vm_of), "init": init}
    if shown_as:
        figure = NotComparable(BUSYBOX_VM, detail={**detail, shown_as: shown(k.ARRANQUE, vm_of, system)})
        return on(vm_of, figure, **options)
    figure = ratio(k.ARRANQUE, vm_of, system, detail=detail)
    return on(vm_of, deferred(vm_of, DEFER, detail, figure), **options)


def lxd_provision(said: Said, df: pd.DataFrame, meta: dict | None) -> list[Claim]:
    """Against LXD's system container: the post's comparison with a systemd VM, the busybox VM's shown."""
    said = said.but(quantity=f"arranque hasta «listo», VM / {k.kind_label(lxd(df))}")
    if sd_vm(df):
        return judge_all([said.but(figure=provision(sd_vm, lxd, "systemd (LXD)"))], df, meta)
    return judge_all([said.but(figure=provision(vm, lxd, "busybox init (VM)", "vm_x_lxd"))], df, meta)


def given_back(variant, happened) -> Custom:
    """The touch-and-free of each instance of `variant` as an observed outcome: did the host hold what the
    claim says (`happened(retained %)`) each time? (An emulated VM's too: the mechanism is the
    hypervisor's, not the CPU's.)"""
    kept = lambda df, meta=None: [float(v) for v in arm_values(df, k.RETENIDA, variant(df, meta))]
    detail = {"tipo": variant, "emulada": emulated(variant), "retenida_pct": kept}
    figure = Outcome(lambda df, meta: [bool(happened(v)) for v in kept(df)], detail=detail)
    return on(variant, figure, needs=measured(k.RETENIDA, variant))


def nested_run(df: pd.DataFrame, meta=None) -> dict:
    """Per engine, `run --rm` nested in LXD over the same engine on the host."""
    runs = df[df["metric"] == k.RUN_MOTOR].groupby(["engine", "variant"])["value"]
    arms, detail = {arm: values.astype(float).to_numpy() for arm, values in runs}, {}
    for engine in sorted(e for e, v in arms if v == k.HOST_RUN and (e, k.NESTED) in arms):
        figure = stats.ratio_ci(arms[(engine, k.NESTED)], arms[(engine, k.HOST_RUN)])
        detail[f"{engine}_anidado_x_host"] = [round(v, 3) for v in figure.triple]
    return detail


def disks(df: pd.DataFrame, meta=None) -> dict:
    """The median disk of each LXD instance and of the VM, MB."""
    arms = {
        "anidado_lxd_escrito_mb": (k.DISCO_ESCRITO, k.NESTED),
        "sistema_lxd_dir_mb": (k.DISCO, "sistema_lxd"),
        "sistema_lxd_cow_mb": (k.DISCO, k.LXD_COW),
        "vm_mb": (k.DISCO, vm(df)),
    }
    values = {key: arm_values(df, *arm) for key, arm in arms.items()}
    return {key: round(float(stats.summarize(v).median), 2) for key, v in values.items() if v.size}


def vm_disk(df: pd.DataFrame, meta=None) -> dict:
    values = arm_values(df, k.DISCO, vm(df))
    median = {"vm_mib": float(np.median(values))} if values.size else {}
    return {"tipo": vm(df), "emulada": k.is_emulated(vm(df)), **median}


# ---------------------------------------------------------------- the claims
post = partial(Said, source=k.SOURCE, unit="x")
about, alike = partial(post, kind="about"), partial(post, claimed=1.0, kind="no_difference")
freed = partial(post, kind="observed", unit="", where=MEMORY)  # memory given back to the host, or not
ARRANQUE_10X = about(
    "arranque_10x",
    PROVISION,
    claimed=10.0,
    quantity="arranque hasta «listo», VM / contenedor de sistema (busybox init)",
    where="sección «Provisioning Time»",
    ref=ref(metric="arranque_vm_vs_sistema"),
    figure=provision(vm, "sistema", "busybox init", "vm_x_sistema", needs=has(vm, "sistema")),
)
SIN_PENALIZACION = alike(
    "sistema_sin_penalizacion",
    "Reforzar el aislamiento de un contenedor (contenedor de sistema, espacio de usuarios) no cuesta "
    "rendimiento.",
    quantity="gzip, contenedor de sistema LXD / contenedor de aplicación",
    where="introducción y «Workload Performance»",
    figure=over_app(k.GZIP, "sistema_lxd"),
)
FIO_QUANTITY = "IOPS de fio (E/S directa), {} / contenedor de aplicación"
GZIP_ALIKE = alike(
    "gzip",
    "El trabajo de CPU (gzip) rinde casi igual en un contenedor en el host, dentro de un contenedor de "
    "sistema y dentro de una VM, mientras no se sobrecomprometan las CPU.",
    where=WORKLOAD + " (gzip, sin sobrecomprometer las CPU)",
    ref=ref(metric="gzip_sistema_vs_bare"),
)


def gzip_over(variant: str, when, den=gzip_baseline, figure=None, detail=None, **changes) -> Said:
    """gzip in `variant` over scenario (1) (`gzip_baseline`), or over bare metal when it is (1) itself."""
    den_of = den if callable(den) else lambda df, meta: den
    figure = figure or ratio(k.GZIP, variant, den, detail=detail)
    words = f"gzip, {k.kind_label(variant)} / {{kind}}"
    return GZIP_ALIKE.but(
        key=f"gzip_{variant}",
        quantity=f"gzip, {k.kind_label(variant)} / bare metal",
        figure=on(den_of, figure, words, when=when),
        **changes,
    )


SAID = (
    ARRANQUE_10X,
    ARRANQUE_10X.but(
        key="arranque_10x_systemd",
        statement=PROVISION.replace("sistema se", "sistema [aquí, con systemd en los dos lados] se"),
        quantity="arranque hasta «listo», VM / contenedor de sistema (systemd)",
        figure=provision(sd_vm, "sistema_systemd", "systemd", when=has(sd_vm, "sistema_systemd")),
    ),
    SIN_PENALIZACION,
    SIN_PENALIZACION.but(
        key="sistema_sin_penalizacion_disco",
        quantity=FIO_QUANTITY.format("contenedor de sistema LXD"),
        figure=over_app(k.FIO, "sistema_lxd"),
    ),
    ARRANQUE_10X.but(
        key="arranque_10x_lxd",
        statement=PROVISION.replace("sistema se", "sistema [aquí, de LXD con systemd] se"),
        quantity="arranque hasta «listo», VM / contenedor de sistema LXD (systemd)",
        figure=Custom(lxd_provision, when=has(vm, "sistema_lxd")),
    ),
    alike(
        "anidado_gzip",
        "Un contenedor dentro de un contenedor de sistema hace el trabajo de CPU (gzip) casi igual que uno "
        "en el host.",
        quantity="gzip, contenedor anidado en LXD / contenedor de aplicación",
        where=WORKLOAD + " (gzip)",
        figure=over_app(k.GZIP, k.NESTED),
    ),
    alike(
        "anidado_disco",
        "Con una carga de disco, un contenedor dentro de un contenedor de sistema rinde casi igual que uno en "
        "el host.",
        quantity=FIO_QUANTITY.format("contenedor anidado en LXD"),
        where=WORKLOAD + " (disco)",
        figure=over_app(k.FIO, k.NESTED),
    ),
    post(
        "vm_disco_lento",
        "Con una carga de disco, un contenedor dentro de una VM rinde hasta un 40 % menos.",
        claimed=0.6,
        kind="range",
        bounds=(0.6, 0.95),
        quantity=FIO_QUANTITY.format("VM"),
        note="«Hasta un 40 % menos» lo leemos como más lento que «casi igual» (por debajo de 0.95×) y no "
        "más de un 40 % (desde 0.6×).",
        where=WORKLOAD + " (disco)",
        figure=deferred(
            vm,
            DEFER + " Además, aquí fio corre en la VM misma, no en un contenedor dentro de ella.",
            {"tipo": vm, "emulada": True},
            over_app(k.FIO, vm),
            when=lambda df, meta: has(vm)(df) and measured(k.FIO, vm)(df),
        ),
    ),
    post(
        "anidado_17",
        "En red (iperf), un contenedor dentro de un contenedor de sistema rinde un 17 % menos, porque sus "
        "paquetes cruzan un puente de Docker más (y dentro de una VM, pierde un 65 % adicional).",
        claimed=1.17,
        kind="percent_about",
        quantity="el mismo «run --rm … echo ok», anidado en LXD / en el host",
        where=WORKLOAD + " (red, iperf)",
        figure=NotComparable(
            "Esta afirmación junta dos cifras de red, y cada una tiene su clave con iperf3 medido aquí: "
            "«red_anidado_17» (el contenedor anidado frente al contenedor de sistema) y «red_vm_65» (la VM "
            "frente al anidado). Lo que esta clave muestra es otra cosa, el arranque de un contenedor anidado "
            "frente al mismo motor en el host: su proporción está en la tabla del escenario (3), como lectura "
            "propia, no como veredicto sobre el 17 %.",
            detail=nested_run,
            when=has(k.NESTED),
        ),
    ),
    about(
        "disco_40",
        "Con Sysbox CE (el artículo usó Sysbox EE y no lo muestra en su gráfico), el disco de un contenedor "
        "de sistema con contenedores dentro subiría a cerca del 40 % del de una VM.",
        claimed=0.4,
        quantity="disco por instancia, contenedor de sistema LXD con motor dentro / VM",
        where=STORAGE + " (la salvedad de Sysbox CE)",
        figure=NotComparable(
            "El 40 % es una estimación del artículo para Sysbox CE frente a VMs Ubuntu de unos 650 MB (MB "
            "decimales, unos 620 MiB) cada una; aquí no hay Sysbox, y la VM del curso es un busybox que casi no escribe en su overlay "
            "qcow2. Del lado de LXD, lo que ocupa cada instancia depende del pool: en «dir» es una copia "
            "entera de su imagen; en un pool con copia en escritura (btrfs), solo lo que la instancia "
            "escribe. La tabla de resultados da las cifras de esta corrida.",
            detail=disks,
            when=has(k.NESTED),
        ),
    ),
    about(
        "densidad",
        "Con cargas de E/S caben el doble de contenedores de sistema que de VMs por servidor, con el mismo "
        "rendimiento (y un 30 % o más con cargas de CPU).",
        claimed=2.0,
        quantity="instancias por servidor con el mismo rendimiento, contenedores de sistema / VMs",
        where="sección «Server Consolidation» («Density» en el índice)",
        ref=ref(metric="consolidacion_io_vs_vm"),
        figure=NotComparable(
            "Decidirlo pide cargar un servidor hasta que el rendimiento caiga, con VMs aceleradas: aquí hay "
            "dos núcleos compartidos y la VM es emulada. Lo que sí se ve aquí es la memoria en reposo de "
            "cada instancia (la del daemon de LXD, aparte), que es una parte de la cuenta de cuántas caben, "
            "no su veredicto.",
            detail={"vm": vm},
            when=has(vm, "sistema_lxd"),
        ),
    ),
    about(
        "memoria_16x",
        "Con esta carga en particular, 16 contenedores de sistema usaron 2 GB de RAM del host y 16 VMs, 32 "
        "GB (16 veces más); el factor cambia según la carga.",
        claimed=16.0,
        quantity="RAM del host con 16 instancias cargadas, VMs / contenedores de sistema",
        where=MEMORY,
        ref=ref(metric="memoria_vm_vs_sistema"),
        figure=NotComparable(
            "El artículo midió la RAM del host con 16 instancias de cada tipo corriendo su carga (2 GB de "
            "RAM asignados a cada una): las VMs se quedan con lo que su carga tocó y liberó. Aquí se mide la "
            "PSS de cada instancia en reposo, sin carga, con busybox: su proporción (en la tabla frente a la "
            "referencia) es otra cifra. Para decidir el 16× haría falta la misma carga en 16 instancias de "
            "cada tipo y la memoria usada del host con todas en marcha.",
            detail={"vm": vm, "emulada": emulated(vm), "pss_vm_x_sistema": shown(k.PSS, vm, "sistema")},
            needs=has(vm, "sistema"),
        ),
    ),
    freed(
        "vm_retiene_memoria",
        "Las VMs se quedan con la memoria que el sistema huésped ya liberó: el host la asignó y nunca la "
        "recupera.",
        quantity=f"el host sigue con más del {VM_KEEPS_ABOVE:.0f} % del bloque que el huésped liberó",
        figure=given_back(vm, lambda kept: kept > VM_KEEPS_ABOVE),
    ),
    freed(
        "contenedor_devuelve_memoria",
        "En un contenedor, la memoria liberada vuelve al host de inmediato.",
        quantity=f"el host recupera el bloque liberado (retiene menos del {CONTAINER_GIVES_BELOW:.0f} %)",
        figure=given_back(container, lambda kept: kept < CONTAINER_GIVES_BELOW),
    ),
    about(
        "vm_disco_650",
        "Cada VM añade unos 650 MB de disco aunque todas partan de la misma imagen maestra, porque la copia "
        "en escritura del disco virtual es mucho menos eficiente que la de los contenedores.",
        claimed=POST_VM_DISK_MIB,
        quantity="disco que añade cada VM (los 650 MB decimales del artículo: 619.9 MiB)",
        unit="MB",
        where=STORAGE,
        ref=ref(metric="disco_vm"),
        figure=on(
            vm,
            NotComparable(
                "El artículo culpa de sus 650 MB a la copia en escritura del disco virtual, mucho menos "
                "eficiente que la de los contenedores, en VMs Ubuntu 20.04 completas (Vagrant + libvirt) que "
                "corrían sus cargas. La del curso es una microVM con busybox que casi no escribe en su "
                "overlay qcow2: su cifra (en la tabla frente al artículo) es otra medida. Lo que sí se ve "
                "aquí es el mecanismo, el overlay que crece con cada bloque que la VM escribe (ejercicio 4). "
                "Para juzgar los 650 MB harían falta VMs Ubuntu clonadas de una misma imagen maestra, con la "
                "misma carga que el artículo.",
                detail=vm_disk,
            ),
            needs=has(vm),
        ),
    ),
    post(
        "contenedor_disco_pocos_mb",
        "Cada contenedor añade solo unos pocos MB de disco.",
        claimed=10.0,
        kind="at_most",
        quantity="disco que añade cada contenedor («unos pocos MB»: como mucho 10 MiB, lectura nuestra)",
        unit="MB",
        where=STORAGE,
        figure=on(
            container,
            Median(Sel(metric=k.DISCO, variant=container, paired=False)),
            needs=measured(k.DISCO, container),
        ),
    ),
    gzip_over("sistema", has("sistema")),
    gzip_over("aplicacion", lambda df, m: has("aplicacion")(df) and not has("sistema")(df), k.BASELINE[1]),
    gzip_over(
        "vm_emulada",
        lambda df, meta: vm(df) == "vm_emulada",
        figure=NotComparable(
            DEFER + " La proporción medida es el costo de emular la CPU, no el de una VM.",
            detail={"tipo": "vm_emulada", "emulada": True},
        ),
    ),
    gzip_over(
        "vm_kvm",
        has("vm_kvm"),
        detail={"tipo": "vm_kvm"},
        note="Aquí gzip corre en la VM misma; en el artículo, en un contenedor dentro de la VM.",
    ),
)


def claims(df: pd.DataFrame, meta: dict | None = None) -> list[Claim]:
    return judge_all(SAID, df, meta)


# ---------------------------------------------------------------- network (iperf3, network.py)
# Gbit/s through each scenario's own path, paired by round: no claim without LXD's system container (the
# phase needs it), «sin datos» without iperf3 rows of both arms.
def red(num, den, build=None):
    """num / den in Gbit/s, or the figure `build(when=…, needs=…)` makes, with the conditions above."""

    def rows(df, meta=None) -> bool:
        return measured(k.RED, num)(df, meta) and measured(k.RED, den)(df, meta)

    conditions = {"when": has("sistema_lxd"), "needs": rows}
    return build(**conditions) if build else ratio(k.RED, num, den, **conditions)


NET = WORKLOAD + " (red, iperf)"
SAID = (
    *SAID,
    alike(
        "red_sistema_igual",
        "En red (iperf), el mismo contenedor rinde igual en el host que en un contenedor de sistema.",
        quantity="Gbit/s de iperf3, contenedor de sistema LXD / contenedor de aplicación",
        where=NET,
        figure=red("sistema_lxd", "aplicacion"),
    ),
    post(
        "red_anidado_17",
        "En red (iperf), un contenedor dentro de un contenedor de sistema rinde un 17 % menos: sus paquetes "
        "cruzan un puente más, el del motor de dentro.",
        claimed=0.83,
        kind="percent_about",
        quantity="Gbit/s de iperf3, contenedor anidado en LXD / contenedor de sistema LXD",
        where=NET,
        figure=red(k.NESTED, "sistema_lxd"),
    ),
    post(
        "red_vm_65",
        "En red (iperf), dentro de una VM se pierde un 65 % más que anidado en un contenedor de sistema (el "
        "puente, la pila de red del huésped, la tarjeta virtual y la del host).",
        claimed=0.35,
        kind="percent_about",
        quantity="Gbit/s de iperf3, VM / contenedor anidado en LXD",
        where=NET,
        figure=red(
            vm,
            k.NESTED,
            partial(
                deferred,
                vm,
                DEFER + " Además, aquí iperf3 corre en la VM misma, no en un contenedor dentro de ella.",
                {"tipo": vm, "emulada": True},
                ratio(k.RED, vm, k.NESTED),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- density with overcommit (density.py)
# N instances of each kind at once, 2 CPUs each, gzip in all N at the same moment (rounds interleaved
# across kinds, so arms pair by round). No claim without the phase's rows (an older run, DENSIDAD = 0).
dense_system = first(k.LXD_COW, "sistema_lxd", "sistema")  # the system container of the phase


def per_instance(variant, level, metric: str = k.DENSIDAD_INSTANCIA) -> Sel:
    """gzip MB/s of `variant` with the run's N = level(df, meta) instances at once (per instance, or all
    together with metric=DENSIDAD_TOTAL)."""
    return Sel(metric=lambda df, meta: k.level_metric(metric, level(df, meta)), variant=variant)


def in_density(*variants, overcommitted: bool = False):
    """A condition: the density rounds measured every one of `variants` (and, if `overcommitted`, their
    largest N assigned more CPUs than the machine has)."""

    def check(df, meta=None) -> bool:
        top = top_level(df, meta)
        if not top or (overcommitted and not overcommit_of(meta, top) > 1):
            return False
        metric = k.level_metric(k.DENSIDAD_INSTANCIA, top)
        return all(arm_values(df, metric, at(v, df, meta)).size for v in variants)

    return check


def held_per_instance(df: pd.DataFrame, meta=None) -> dict:
    """The host's memory per instance after touch-and-free with N at once: VM / system container, and that
    ratio over the post's 16× (2 GB for 16 system containers, 32 GB for 16 VMs)."""
    vm_mb = arm_values(df, k.DENSIDAD_DESPUES, vm(df))
    system_mb = arm_values(df, k.DENSIDAD_DESPUES, dense_system(df))
    detail = {
        "n": top_level(df, meta),
        "tipo": vm(df),
        "sistema": dense_system(df),
        "emulada": emulated(vm)(df),
    }
    if vm_mb.size and system_mb.size:
        vm_median, system_median = float(np.median(vm_mb)), float(np.median(system_mb))
        factor = vm_median / system_median if system_median > 0 else float("nan")
        detail |= {
            "vm_mb": round(vm_median, 2),
            "sistema_mb": round(system_median, 2),
            "vm_x_sistema": round(factor, 2),
            "frente_al_articulo": round(factor / MEMORY_16X, 2),
        }
    return detail


MEMORY_16X = 16.0
DENSITY_DEFER = (
    "La VM de esta máquina es emulada (TCG, sin KVM que funcione): con N VMs a la vez se ve el costo de "
    "emular la CPU, no el de una VM acelerada. Con KVM, esta misma fase lo juzga."
)
DENSITY_WORKLOAD = WORKLOAD + " (gzip frente al número de instancias)"
FALLS = (
    "Cuando se sobrecomprometen las CPU (las instancias tienen asignadas más CPU de las que hay), el "
    "rendimiento cae rápido, sobre todo en las VMs."
)
FALLS_NOTE = (
    "«Cae» lo leemos como por debajo de 0.95×, fuera del margen de «casi igual»: cuánto es «rápido», el "
    "artículo no lo dice con una cifra. gzip usa una CPU: la caída empieza cuando hay más gzip a la vez "
    "que núcleos."
)


def falls(variant, key: str) -> Said:
    """gzip per instance at the largest N over the N that does not overcommit, in `variant`."""
    figure = Ratio(per_instance(variant, top_level), per_instance(variant, fit_level))
    return post(
        key,
        FALLS,
        kind="reduces",
        quantity="gzip por instancia, la N mayor (CPU sobrecomprometidas) / sin sobrecomprometer",
        note=FALLS_NOTE,
        where=DENSITY_WORKLOAD,
        figure=on(variant, figure, when=in_density(variant, overcommitted=True)),
    )


def vm_falls_more(*sels):
    """The VM's fall over the system container's: (VM at top ÷ VM fit) ÷ (system at top ÷ system fit)."""
    return Formula(lambda vt, vf, st, sf: (vt / vf) / (st / sf), *sels)


SAID = (
    *SAID,
    GZIP_ALIKE.but(
        key="densidad_gzip_sistema",
        quantity="gzip por instancia con N a la vez sin sobrecomprometer las CPU (N·2 ≤ núcleos), "
        "contenedor de sistema / contenedor de aplicación",
        where=DENSITY_WORKLOAD,
        ref=None,
        figure=on(
            dense_system,
            Ratio(per_instance(dense_system, fit_level), per_instance("aplicacion", fit_level)),
            "gzip por instancia con N a la vez sin sobrecomprometer las CPU (N·2 ≤ núcleos), {kind} / "
            "contenedor de aplicación",
            when=in_density(dense_system, "aplicacion"),
        ),
    ),
    GZIP_ALIKE.but(
        key="densidad_gzip_vm",
        quantity="gzip por instancia con N a la vez sin sobrecomprometer las CPU (N·2 ≤ núcleos), VM / "
        "contenedor de aplicación",
        where=DENSITY_WORKLOAD,
        ref=None,
        figure=deferred(
            vm,
            DENSITY_DEFER,
            {"tipo": vm, "emulada": emulated(vm)},
            Ratio(per_instance(vm, fit_level), per_instance("aplicacion", fit_level)),
            when=in_density(vm, "aplicacion"),
        ),
    ),
    falls(first("aplicacion"), "densidad_cae_aplicacion"),
    falls(dense_system, "densidad_cae_sistema"),
    post(
        "densidad_cae_mas_vm",
        FALLS,
        kind="reduces",
        quantity="caída de gzip por instancia (la N mayor / sin sobrecomprometer), VM / contenedor de sistema",
        note="«Sobre todo en las VMs»: la caída de la VM, por debajo de 0.95× la del contenedor de sistema.",
        where=DENSITY_WORKLOAD,
        figure=deferred(
            vm,
            DENSITY_DEFER,
            {"tipo": vm, "emulada": emulated(vm)},
            vm_falls_more(
                per_instance(vm, top_level),
                per_instance(vm, fit_level),
                per_instance(dense_system, top_level),
                per_instance(dense_system, fit_level),
            ),
            when=in_density(vm, dense_system, overcommitted=True),
        ),
    ),
    post(
        "densidad_cpu_30",
        "Con cargas de CPU caben un 30 % o más de contenedores de sistema que de VMs por servidor, con el "
        "mismo rendimiento.",
        claimed=1.3,
        kind="at_least",
        quantity="gzip de las N a la vez, la N mayor (CPU sobrecomprometidas), contenedor de sistema / VM",
        note="Lectura nuestra: con la misma carga por instancia, caben tantas instancias como permite el "
        "trabajo total que da el servidor sobrecomprometido; «un 30 % o más» es entonces ese total, el del "
        "contenedor de sistema al menos 1.3× el de la VM.",
        where="sección «Server Consolidation»",
        figure=deferred(
            vm,
            DENSITY_DEFER,
            {"tipo": vm, "emulada": emulated(vm)},
            Ratio(
                per_instance(dense_system, top_level, k.DENSIDAD_TOTAL),
                per_instance(vm, top_level, k.DENSIDAD_TOTAL),
            ),
            when=in_density(vm, dense_system, overcommitted=True),
        ),
    ),
    about(
        "densidad_memoria_16x",
        "Con esta carga en particular, 16 contenedores de sistema usaron 2 GB de RAM del host y 16 VMs, 32 "
        "GB (16 veces más); el factor cambia según la carga.",
        claimed=MEMORY_16X,
        quantity="RAM del host por instancia tras tocar y liberar con N a la vez, VM / contenedor de sistema",
        where=MEMORY,
        ref=ref(metric="memoria_vm_vs_sistema"),
        figure=NotComparable(
            "El 16× es de la carga del artículo (Phoronix, 2 GB asignados a cada una de 16 instancias), y el "
            "propio artículo dice que el factor cambia con la carga. Aquí cada una de las N instancias a la "
            "vez toca y libera MEMORIA_MB: lo que el host sigue reteniendo por instancia, VM / contenedor de "
            "sistema, y esa proporción ÷ 16 están al lado, como lectura propia. El mecanismo (la VM se queda "
            "con lo que su huésped liberó) es del hipervisor, no de la CPU: vale también con una VM emulada.",
            detail=held_per_instance,
            when=lambda df, meta: has(vm)(df) and measured(k.DENSIDAD_DESPUES, dense_system)(df, meta),
        ),
    ),
)
