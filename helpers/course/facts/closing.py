"""09's facts for the instructor's kit: the sums that set 01's launch beside 03's running cost (the
bottom line, how many `exec` fit in one `run`, a short program against a long one), and a Pod of
Kubernetes (04's launch and cluster bill, beside 02's Docker and Podman) in the sentences 09 prints.
They read several experiments' runs, so they live with the course, not in one experiment's package."""

from __future__ import annotations

from ...cierre import launch_row
from ...experiments import ejecucion as x
from ...experiments import verdict
from ...experiments.anatomia import NOTEBOOK as POD_NOTEBOOK
from ...experiments.ejecucion.analysis import exec_costs, overheads
from ...experiments.ejecucion.arms import BASE_NAMES
from ...view import common
from ...view.anatomia_pod import bill_sentence, launch_and_phase, why_absent
from .ejecucion import fair_overheads
from .words import ENGINE, em, missing_arms, no_run, run_tag

# ---------------------------------------------------------------- 09: the bottom line
JOBS, WORK_S = 100, 600  # the exercise: 100 containers, 10 minutes of work


def bottom_line(launch_run, running_run) -> str:
    """100 launches (01, Docker, default network, ubuntu) against 10 minutes × the `hash` overhead (03,
    Docker, the work alone against its fairest baseline, as 09's table shows it): which weighs more."""
    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    launch = launch_row(launch_run)  # the launch 09 cites (ubuntu if measured)
    cpu = fair_overheads(overheads(running_run.df), "hash", ["docker"])
    if launch is None or cpu.empty:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y la carga hash de Docker")
    launch_s = JOBS * float(launch["mediana_ms"]) / 1000
    r = cpu.iloc[0]
    running_s, low_s, high_s = (
        WORK_S * float(v) / 100 for v in (r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct)
    )
    # RUNNING's interval against LAUNCH's sum (whose own interval is ~100× narrower), by the one rule.
    way = verdict.side(low_s, high_s, int(r.n), around=launch_s)
    words = common.direction_words(way, "pesa más RUNNING", "pesa más LAUNCH", n=int(r.n), around=launch_s)
    heavier = "LAUNCH" if launch_s > running_s else "RUNNING"
    return (
        f"Con las corridas de esta máquina (Docker, imagen «{launch['role']}»): {JOBS} arranques suman "
        f"{common.fmt_value(launch_s, 's', 1)}; {WORK_S // 60} minutos con una sobrecarga de "
        f"{common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')} (frente a "
        f"{BASE_NAMES[r.base]}) suman {common.fmt_value_interval(running_s, low_s, high_s, 's')}. "
        f"Con las medianas pesa más {heavier}; con el IC 95 % de RUNNING frente a los "
        f"{common.fmt_value(launch_s, 's', 1)} de LAUNCH: {words}."
    )


def _docker_launches(launch_run):
    """01's `run --rm` with the default network, per engine (cierre.launch_row): {engine: row}."""
    rows = {engine: launch_row(launch_run, engine) for engine in ENGINE}
    return {engine: row for engine, row in rows.items() if row is not None}


def exec_in_run(launch_run, running_run) -> str:
    """09, exercise 2: how many `exec … true` (03) fit in one `run --rm` (01), per engine (medians)."""
    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    launches, costs = _docker_launches(launch_run), exec_costs(running_run.df)
    parts = []
    for engine, run in launches.items():
        rows = costs[(costs["medida"] == x.EXEC_TRUE) & (costs["entorno"] == engine)] if len(costs) else costs
        if len(rows) and rows["mediana_ms"].iloc[0] > 0:
            e = rows.iloc[0]
            parts.append(
                f"en {ENGINE[engine]}, un `run --rm` de "
                f"{common.fmt_value_interval(run['mediana_ms'], run['ic_bajo_ms'], run['ic_alto_ms'], 'ms')} y un "
                f"`exec … true` de {common.fmt_value_interval(e.mediana_ms, e.ic_bajo_ms, e.ic_alto_ms, 'ms')}: "
                f"caben unos {_two(run['mediana_ms'] / e.mediana_ms)}"
            )
    if not parts:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y el `exec true` de un mismo motor")
    return "Con las medianas de esta máquina: " + "; ".join(parts) + "."


def short_and_long(launch_run, running_run) -> str:
    """09, exercise 1: Docker's launch against a 50 ms program and against 10 minutes × the `hash`
    overhead (the work alone against its fairest baseline)."""
    if launch_run is None or running_run is None:
        missing = "01_arranque" if launch_run is None else "03_ejecucion"
        return em(f"falta una corrida de `{missing}` para hacer la cuenta en esta máquina")
    launch = _docker_launches(launch_run).get("docker")
    cpu = fair_overheads(overheads(running_run.df), "hash", ["docker"])
    if launch is None or cpu.empty:
        return missing_arms("01_arranque y 03_ejecucion", "el arranque y la carga hash de Docker")
    r = cpu.iloc[0]
    ms = float(launch["mediana_ms"])
    seconds = [WORK_S * float(v) / 100 for v in (r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct)]
    return (
        f"Con las cifras de esta máquina (Docker): el arranque, "
        f"{common.fmt_value_interval(ms, launch['ic_bajo_ms'], launch['ic_alto_ms'], 'ms')}, es unas "
        f"{_two(ms / 50)} veces un programa de 50 ms; en 10 minutos, la sobrecarga de hash, "
        f"{common.fmt_value_interval(r.sobrecarga_pct, r.ic_bajo_pct, r.ic_alto_pct, '%')} frente a "
        f"{BASE_NAMES[r.base]}, son {common.fmt_value_interval(*seconds, 's')}, y el arranque, "
        f"{common.fmt_value(ms / 1000, 's')}."
    )


def _two(value: float) -> str:
    """A quotient to two significant digits: «4.0», «1.5», «57»."""
    return common.fmt_value(value, "", common.significant(value, 2))


# ---------------------------------------------------------------- 09: a Pod of Kubernetes
def _pod_sentence(pods_run, text: str) -> str:
    """`text` from 04's run, tagged with it; 04's own line when Kubernetes did not run in it."""
    if pods_run is None or pods_run.df.empty:
        return no_run(POD_NOTEBOOK)
    if not text:
        why = why_absent(pods_run).strip("_")
        return em(f"{run_tag(pods_run)} de `{POD_NOTEBOOK}`: {why[:1].lower()}{why[1:]}")
    return f"En la {run_tag(pods_run)} de `{POD_NOTEBOOK}`: {text[:1].lower()}{text[1:]}"


def pod_launch(pods_run) -> str:
    """A Pod's LAUNCH beside `docker run` and `podman run`, and the phase that dominates: 04's sentences,
    as 04's page and 09 print them."""
    if pods_run is None:
        return no_run(POD_NOTEBOOK)
    return _pod_sentence(pods_run, launch_and_phase(pods_run.df, pods_run.meta))


def pod_capacity(pods_run, scale_run) -> str:
    """The cluster's fixed memory and one more Pod's, beside 02's Docker and Podman: 04's sentence."""
    if pods_run is None:
        return no_run(POD_NOTEBOOK)
    return _pod_sentence(pods_run, bill_sentence(pods_run.df, scale_run))
