"""RUNNING facts of 05 (llamadas: getpid per layer, the vDSO, what a call rate costs, nested PID
namespaces) and 06 (red: each network path against native, the security claim, docker-proxy's ceiling,
the document's preset), each a sentence computed from the latest run through the experiments' own
analysis and verdicts, in view.common's number format."""

from __future__ import annotations

from ... import reference, stats
from ...experiments import llamadas, red, verdict
from ...experiments import verdict as vd
from ...experiments.red import servers
from ...experiments.red.claims import SECURITY_CAUSE
from ...view import common
from ...view import llamadas as view
from .words import ENGINE, Facts, missing_arms, run_tag

RATE = 1_000_000  # 05, exercise 4: 50 000 requests per second × 20 calls each
UNSTABLE = " (brazo inestable en esta corrida: es solo una lectura, repite antes de concluir)"


def _engines(df) -> list[str]:
    present = set(df["engine"]) if len(df) else set()
    return [e for e in ENGINE if e in present]


# ---------------------------------------------------------------- 05: llamadas
def _cpu_share(seconds_per_second: float) -> str:
    """CPU per second as the notebook's «¿Cuándo importa?» writes it: «% de un núcleo» or «núcleos»."""
    if seconds_per_second < 1:
        value = seconds_per_second * 100
        return f"{common.fmt(value, common.significant(value))} % de un núcleo"
    return f"{common.fmt(seconds_per_second, common.significant(seconds_per_second))} núcleos"


def from_llamadas(res) -> Facts:
    nb, df, meta = llamadas.NOTEBOOK, res.df, res.meta
    out: Facts = {}
    params = meta.get("parameters") or {}
    engines = _engines(df)

    # The container (default seccomp) against the host, and what the seccomp profile multiplies.
    container, profile = [], []
    for engine in engines:
        r = llamadas.arm_ratio(df, (engine, "seccomp"), llamadas.BASELINE)
        if not stats.any_nan(r[0]):
            container.append(f"{ENGINE[engine]} {common.fmt_ratio(*r)}")
        p = llamadas.arm_ratio(df, (engine, "seccomp"), (engine, "sin_seccomp"))
        if not stats.any_nan(p[0]):
            profile.append(
                f"en {ENGINE[engine]}, {common.fmt_ratio(*p)} ({common.direction_words(vd.direction(p[1], p[2], None))})"
            )
    out["llamadas.contenedor"] = (
        "getpid en el contenedor / en el host: " + "; ".join(container)
        if container
        else missing_arms(nb, "getpid en el host y en un contenedor con seccomp")
    )

    # Exercise 2: the two overhead claims as the run judged them, and the seccomp profile's factor.
    judged = llamadas.claims(df, meta)
    verdicts = []
    for engine in engines:
        mine = {c.key: c for c in judged if c.detail.get("engine") == engine}
        run, table = mine.get("contenedor_11"), mine.get("contenedor_tabla")
        if run is None or table is None or stats.any_nan(run.value):
            continue
        verdicts.append(
            f"en {ENGINE[engine]}, la sobrecarga medida ({common.fmt_value_interval(run.value, run.low, run.high, '%')}) "
            f"frente al 11 % de su corrida: «{common.verdict_words(run)}»; frente al 24-30 % de su tabla: "
            f"«{common.verdict_words(table)}»"
        )
    calls = params.get("llamadas")
    rounds = int(df["rep"].max()) if len(df) else 0
    head = (
        f"En la {run_tag(res)} ({common.num(calls) if calls else '?'} llamadas por medición, {rounds} rondas)"
    )
    out["llamadas.seccomp"] = (
        f"{head}, getpid con el perfil seccomp costó, frente al mismo contenedor sin seccomp: "
        + "; ".join(profile)
        + "."
        if profile
        else f"{head} no midió los brazos `seccomp` y `sin_seccomp` en el mismo motor."
    ) + (" Veredictos: " + "; ".join(verdicts) + "." if verdicts else "")

    # Exercise 3: where the vDSO call moved, the notebook's own sentence.
    out["llamadas.vdso"] = view._frase_vdso(df)

    # Exercise 4: a million calls per second, from the «¿Cuándo importa?» table.
    cost = llamadas.cost_at_rate(df, RATE).set_index("brazo") if len(df) else None
    parts = []
    for engine in engines:
        labels = {v: llamadas.arm_label(engine, v) for v in ("seccomp", "sin_seccomp", "gvisor")}
        if cost is not None and {labels["seccomp"], labels["sin_seccomp"]} <= set(cost.index):
            extra = cost.loc[labels["seccomp"], "ns_extra"] - cost.loc[labels["sin_seccomp"], "ns_extra"]
            per_s = extra * RATE / 1e9
            words = _cpu_share(per_s) if per_s > 0 else "nada medible (la diferencia salió negativa)"
            shaky = cost.loc[labels["seccomp"], "inestable"] or cost.loc[labels["sin_seccomp"], "inestable"]
            parts.append(
                f"el perfil seccomp de {ENGINE[engine]} añade {common.fmt(extra, common.significant(extra))} ns "
                f"por llamada ({labels['seccomp']} menos {labels['sin_seccomp']}): {words}"
                + (UNSTABLE if shaky else "")
            )
        if cost is not None and labels["gvisor"] in cost.index:
            g = cost.loc[labels["gvisor"]]
            parts.append(
                f"{labels['gvisor']} añade {common.fmt(g['ns_extra'], common.significant(g['ns_extra']))} ns "
                f"por llamada frente al host: {_cpu_share(g['cpu_por_segundo'])}"
                + (UNSTABLE if g["inestable"] else "")
            )
    out["llamadas.cuanto_importa"] = (
        f"Con las medianas de la {run_tag(res)}, a {common.num(RATE)} getpid por segundo: "
        + "; ".join(parts)
        + "."
        if parts
        else missing_arms(nb, "los brazos `seccomp`, `sin_seccomp` o `gvisor` junto al host")
    )

    # Exercise 6: the nesting slope and what it says of the course's correction.
    nesting = next((c for c in judged if c.key == "anidamiento"), None)
    slope, low, high, n = llamadas.nesting_slope(df)
    if nesting is None or not n:
        out["llamadas.anidamiento"] = missing_arms(
            nb, "los namespaces PID anidados (brazos `pid` y `anidado`)"
        )
    else:
        reading = {
            verdict.NO_SE_SOSTIENE: "su intervalo queda por debajo del piso de «añade costo»: la recta es plana, "
            "como predice el código",
            verdict.SE_CONFIRMA: "su intervalo queda por encima del piso de «añade costo»: la recta sube, y eso "
            "contradice el código (repite con la máquina más tranquila antes de concluir)",
            verdict.NO_CONCLUYENTE: "su intervalo cruza el piso de «añade costo»: esta corrida no decide",
        }.get(nesting.status, common.verdict_words(nesting))
        out["llamadas.anidamiento"] = (
            f"En la {run_tag(res)}, cada nivel de namespace PID añadió "
            f"{common.fmt_value_interval(slope, low, high, 'ns')} a getpid "
            f"({common.fmt_value_interval(nesting.value, nesting.low, nesting.high, '%')} de la llamada del "
            f"host; pendiente ronda a ronda, {n} rondas); {reading}."
        )

    # Exercise 1: the two clocks of the host's getpid, with the CPU the probe was pinned to.
    cpu = llamadas.summarize(df, meta, clock=llamadas.CPU)
    wall = llamadas.summarize(df, meta, clock=llamadas.WALL)
    pick = [
        s[(s["engine"] == "bare") & (s["variant"] == "host") & (s["operacion"] == "getpid")]
        for s in (cpu, wall)
    ]
    if all(len(p) for p in pick):
        (c,), (w,) = (p.itertuples() for p in pick)
        out["llamadas.relojes"] = (
            f"En la {run_tag(res)} ({llamadas.cpu_label(params.get('cpu'))}), getpid en el host: tiempo de CPU "
            f"{common.fmt(c.mediana_ns, common.significant(c.mediana_ns), 'ns')} (IQR "
            f"{common.fmt_interval(c.q1_ns, c.q3_ns, common.significant(c.q1_ns))}), reloj de pared "
            f"{common.fmt(w.mediana_ns, common.significant(w.mediana_ns), 'ns')} (IQR "
            f"{common.fmt_interval(w.q1_ns, w.q3_ns, common.significant(w.q1_ns))})."
        )
    else:
        out["llamadas.relojes"] = missing_arms(nb, "getpid en el host con los dos relojes")
    return out


# ---------------------------------------------------------------- 06: red
def from_red(res) -> Facts:
    nb, df, meta = red.NOTEBOOK, res.df, res.meta
    out: Facts = {}
    server = red.main_server(df)
    label = servers.SERVERS[server].label if server else "?"
    ratios = red.path_ratios(df, server) if server else {}
    ref = red.reference_ratios(reference.load(red.EXPERIMENT))
    ref_docker = ref[(ref["servidor"] == "nethttp") & (ref["engine"] == "docker")]["frente_nativo"]
    doc = (
        f"; el documento, con net/http: {common.fmt_ratio(float(ref_docker.iloc[0]))}"
        if len(ref_docker)
        else ""
    )

    if "puerto_frente_nativo" in ratios:
        value, low, high, n = ratios["puerto_frente_nativo"]
        out["red.docker_puerto"] = (
            f"Docker -p / nativo con {label}: {common.fmt_ratio(value, low, high)} en {n} rondas{doc}"
        )
    else:
        out["red.docker_puerto"] = missing_arms(
            nb, "los brazos `nativo` y `docker-puerto` con el mismo servidor"
        )

    # Exercise 5: the network paths against each other, and the security claim's verdict.
    words = {
        "host_frente_nativo": "Docker con `--network host` frente a nativo",
        "puerto_frente_nativo": "Docker -p frente a nativo",
        "nat_frente_proxy": "Podman -p (NAT) frente a Docker -p (proxy)",
    }
    paths = [f"{words[k]}, {common.fmt_ratio(*ratios[k][:3])}" for k in words if k in ratios]
    out["red.caminos"] = (
        f"En la {run_tag(res)}, con {label}: " + "; ".join(paths) + "."
        if paths
        else missing_arms(nb, "dos caminos de red con el mismo servidor")
    )
    security = next((c for c in red.claims(df, meta) if c.key == SECURITY_CAUSE.key), None)
    if security is None or stats.any_nan(security.value):
        out["red.seguridad"] = missing_arms(nb, "el brazo `docker-seguridad` junto a `docker-puerto`")
    else:
        out["red.seguridad"] = (
            f"Docker -p sin seccomp / Docker -p = "
            f"{common.fmt_value_interval(security.value, security.low, security.high, 'x')} "
            f"({security.n} rondas): el veredicto sobre «procesamiento de seguridad» es "
            f"«{common.verdict_words(security)}»"
        )

    # Exercise 4: docker-proxy's CPU per request, the ceiling it gives one core, and what was measured.
    s = red.summarize(df, meta)
    proxy = (
        s[(s["engine"] == "docker") & (s["variant"] == "puerto") & (s["servidor"] == server)] if len(s) else s
    )
    if len(proxy) and not stats.any_nan(proxy["us_cpu_proxy"].iloc[0]) and proxy["us_cpu_proxy"].iloc[0] > 0:
        us, measured = float(proxy["us_cpu_proxy"].iloc[0]), float(proxy["req_s"].iloc[0])
        ceiling = 1e6 / us
        out["red.proxy"] = (
            f"En la {run_tag(res)}, con {label}, docker-proxy gastó {common.fmt(us, 1, 'µs')} de CPU por "
            f"petición: con un núcleo entero para él movería como mucho unas {common.num(ceiling)} peticiones "
            f"por segundo, y `docker-puerto` atendió {common.num(measured)} (el {common.num(100 * measured / ceiling)} % "
            "de ese techo)."
        )
    else:
        out["red.proxy"] = missing_arms(nb, "la CPU de docker-proxy en el brazo `docker-puerto`")

    return out


def static_facts() -> Facts:
    """Facts that no run changes: how long the document's one-click configurations take (06 exercise 1),
    from the same estimate the panel shows before launching."""
    preset = red.Config(**red.DOCUMENT_PRESET)
    return {
        "red.preset": (
            f"{len(preset.servidores) * len(preset.brazos)} combinaciones × {preset.repeticiones} rondas × "
            f"{preset.duracion_s} s: unos {common.num(red.estimated_seconds(preset) / 60)} minutos"
        )
    }
