"""What a person sees of experiment 7 (anidamiento): tables, a plot, the attempts without --privileged,
the memory and disk of an inner engine, and the verdicts. Every function takes a Resultado (or None) and
never launches a container."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .. import experiments, reference
from ..experiments import anidamiento as exp
from ..experiments import verdict
from ..experiments.anidamiento import levels
from ..experiments.anidamiento.analysis import compare, level_ratios, summarize
from ..experiments.runner import Resultado
from .common import (
    AGREEMENT,
    AGREEMENT_MARGIN,
    ENGINE_LABEL,
    VERDICT,
    behind_the_claims,
    claims_list,
    direction_words,
    fmt,
    fmt_interval,
    fmt_ratio,
    markdown,
    missing_run,
    needs_result,
    show,
    table,
    too_few,
    too_few_banner,
    verdict_words,
)
from .figuras import show_figure

CLAIMED_ROW_KEY = "arranque_aditivo"  # its figure is a row of the comparison (comparacion)
BRAZO = {
    "nivel0": "bare metal",
    "nivel1": "nivel 1 (contenedor normal)",
    levels.PRIV: "nivel 2 (motor dentro de un contenedor privilegiado)",
    levels.UNPRIV: "nivel 2 sin --privileged",
    "nivel3": "nivel 3 (un motor más adentro)",
}
CORTO = {
    "nivel0": "bare\nmetal",
    "nivel1": "nivel 1",
    levels.PRIV: "nivel 2",
    levels.UNPRIV: "nivel 2\nsin priv.",
    "nivel3": "nivel 3",
}
MEDIDA = {
    levels.METRIC_START: "arranque (desde el host, con los exec)",
    levels.METRIC_START_INNER: "arranque (solo el run de dentro)",
    levels.METRIC_WORK: "trabajo de CPU (medido dentro)",
    levels.METRIC_WORK_E2E: "trabajo de CPU (desde el host, con los exec)",
}


# Level 2 of an engine whose --privileged failed here (modos): what the outer container got instead.
PRIV_REPLACED = "nivel 2 (motor dentro de un contenedor con las capacidades del host, sin --privileged)"


def _brazo(engine: str, variant: str, meta: dict | None = None) -> str:
    """The arm's label; level 2 says «privilegiado» only where the outer container got --privileged."""
    if engine == "bare":
        return BRAZO["nivel0"]
    label = BRAZO.get(variant, variant)
    mode = (((meta or {}).get("anidamiento") or {}).get("modos") or {}).get(engine) or {}
    if variant == levels.PRIV and mode and mode.get("modo") != "--privileged":
        label = PRIV_REPLACED
    return f"{ENGINE_LABEL.get(engine, engine)}: {label}"


def _cell(s: pd.DataFrame, engine: str, variant: str, metric: str, digits: int) -> str:
    sel = s[(s["engine"] == engine) & (s["variant"] == variant) & (s["metric"] == metric)]
    if sel.empty:
        return "—"
    r = sel.iloc[0]
    text = f"{fmt(r['mediana'], digits)} {fmt_interval(r['q1'], r['q3'], digits)}"
    return text + (" (inestable)" if r["inestable"] else "")


@needs_result
def tabla(resultado: Resultado) -> None:
    """Medians per arm, with the IQR (type-7 quantiles) in brackets."""
    s = summarize(resultado.df, resultado.meta)
    timed = s[s["metric"].isin(list(MEDIDA))]
    rows = []
    for (engine, variant), _ in timed.groupby(["engine", "variant"], sort=False):
        rows.append(
            {
                "brazo": _brazo(engine, variant, resultado.meta),
                "arranque desde el host (ms)": _cell(s, engine, variant, levels.METRIC_START, 1),
                "arranque, solo el run (ms)": _cell(s, engine, variant, levels.METRIC_START_INNER, 1),
                "trabajo de CPU dentro (s)": _cell(s, engine, variant, levels.METRIC_WORK, 3),
                "trabajo desde el host (s)": _cell(s, engine, variant, levels.METRIC_WORK_E2E, 3),
                "n": int(timed[(timed["engine"] == engine) & (timed["variant"] == variant)]["n"].max()),
            }
        )
    show(table(pd.DataFrame(rows), "Medianas por brazo [rango intercuartílico]"))


@needs_result
def tabla_niveles(resultado: Resultado) -> None:
    """What each added level costs: the ratio to the level right above, with its IC 95 %."""
    rows = []
    for metric in (
        levels.METRIC_START_INNER,
        levels.METRIC_START,
        levels.METRIC_WORK,
        levels.METRIC_WORK_E2E,
    ):
        for _, r in level_ratios(resultado.df, metric).iterrows():
            base_engine, base_variant = r["base"].split(":")
            rows.append(
                {
                    "medida": MEDIDA[metric],
                    "brazo": _brazo(r["engine"], r["variant"], resultado.meta),
                    "frente a": _brazo(base_engine, base_variant, resultado.meta),
                    "proporción [IC 95 %]": fmt_ratio(r["ratio"], r["ic_bajo"], r["ic_alto"]),
                    "lectura": _lectura(r),
                }
            )
    show(
        table(
            pd.DataFrame(rows),
            "Cuánto cuesta cada nivel más (mediana del nivel / mediana del nivel de arriba)",
        )
    )


def _lectura(r) -> str:
    """Which way a level's ratio points (verdict.direction), in the one wording."""
    if r["inestable"]:
        return VERDICT[verdict.INESTABLE]
    code = verdict.side(r["ic_bajo"], r["ic_alto"], int(r["n"]))
    return direction_words(code, "más lento", "más rápido", n=int(r["n"]))


@needs_result
def grafico(resultado: Resultado) -> None:
    """Every repetition per level: startup (log axis) and CPU work; under it, how far each level-1 start
    sits from bare metal, from this run's ratios."""
    df = resultado.df[resultado.df["metric"].isin([levels.METRIC_START_INNER, levels.METRIC_WORK])].copy()
    if df.empty:
        markdown("No hay mediciones de arranque ni de trabajo en esta corrida.")
        return
    order = [v for v in levels.VARIANTS if v in set(df["variant"])]
    df["nivel"] = df["variant"].map(CORTO)
    df["motor"] = df["engine"].map(lambda e: ENGINE_LABEL.get(e, e))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for ax, metric, ylabel in (
        (axes[0], levels.METRIC_START_INNER, "arranque de «echo ok» (ms, escala log)"),
        (axes[1], levels.METRIC_WORK, "SHA-256 medido dentro (s)"),
    ):
        part = df[df["metric"] == metric]
        sns.stripplot(
            data=part,
            x="nivel",
            y="value",
            hue="motor",
            order=[CORTO[v] for v in order],
            dodge=True,
            alpha=0.7,
            size=6,
            ax=ax,
        )
        ax.set_xlabel("")
        ax.set_ylabel(ylabel, fontsize=12)
        ax.tick_params(labelsize=11)
        if metric == levels.METRIC_START_INNER:
            ax.set_yscale("log")
        ax.legend(title="motor", fontsize=10)
    axes[0].set_title("LAUNCH: arrancar un contenedor en cada nivel", fontsize=13)
    axes[1].set_title("RUNNING: el mismo trabajo en cada nivel", fontsize=13)
    fig.tight_layout()
    show_figure(fig)
    markdown(_start_vs_bare(resultado))
    beside = _level1_beside_04(resultado, experiments.read_run(exp, "anatomia"))
    if beside:
        markdown(beside)


def _start_vs_bare(resultado: Resultado) -> str:
    """«Bare metal started `echo ok` in X ms; Docker's level 1, Y× that [IC]…», from this run's ratios."""
    s = summarize(resultado.df, resultado.meta)
    bare = s[(s["engine"] == "bare") & (s["metric"] == levels.METRIC_START_INNER)]
    ratios = level_ratios(resultado.df, levels.METRIC_START_INNER)
    first = ratios[ratios["variant"] == "nivel1"]
    if bare.empty or first.empty:
        return ""
    parts = [
        f"el nivel 1 de {ENGINE_LABEL.get(r['engine'], r['engine'])}, {fmt_ratio(r['ratio'], r['ic_bajo'], r['ic_alto'])} eso"
        for _, r in first.iterrows()
    ]
    text = (
        f"Sin contenedor, `echo ok` tardó {fmt(bare.iloc[0]['mediana'], 2, 'ms')} de mediana; "
        + "; ".join(parts)
        + (
            " (por ronda, IC 95 %)."
            if first[["ic_bajo", "ic_alto"]].notna().all(axis=None)
            else f" (por ronda; {too_few(int(first['n'].min())) or 'sin IC 95 %'})."
        )
    )
    shaky = [
        "bare metal"
        if r["engine"] == "bare"
        else f"el nivel 1 de {ENGINE_LABEL.get(r['engine'], r['engine'])}"
        for _, r in s[
            (s["metric"] == levels.METRIC_START_INNER) & s["variant"].isin(["nivel0", "nivel1"])
        ].iterrows()
        if r["inestable"]
    ]
    if shaky:
        text += (
            f" Pero {' y '.join(shaky)} {'es una medición inestable' if len(shaky) == 1 else 'son mediciones inestables'}"
            " (su dispersión aplasta a su mediana): estas veces son solo orientativas; repite antes de citarlas."
        )
    return text


def _level1_beside_04(resultado: Resultado, anatomia_run: Resultado | None) -> str:
    """Level 1 is the same `run --rm --network none … echo ok` that notebook 04 times as its rung «run
    --network none»: both medians side by side, so a class that sees two figures for one command reads
    why (here the other levels' containers run at the same time)."""
    if anatomia_run is None or anatomia_run.df.empty:
        return ""
    s = summarize(resultado.df, resultado.meta)
    pairs = []
    for engine in ("docker", "podman"):
        here = s[
            (s["engine"] == engine) & (s["variant"] == "nivel1") & (s["metric"] == levels.METRIC_START_INNER)
        ]
        a = anatomia_run.df
        there = a[(a["engine"] == engine) & (a["variant"] == "run_sin_red") & (a["metric"] == "arranque")]
        if here.empty or there.empty:
            continue
        median_04 = float(pd.to_numeric(there["value"]).median())
        pairs.append(
            f"{ENGINE_LABEL.get(engine, engine)} {fmt(here.iloc[0]['mediana'], 0, 'ms')} aquí y "
            f"{fmt(median_04, 0, 'ms')} en el cuaderno 04"
        )
    if not pairs:
        return ""
    run_id = anatomia_run.meta.get("run_id", "")
    return (
        "El nivel 1 es el mismo `run --rm --network none … echo ok` que el cuaderno 04 cronometra como su peldaño "
        f"«run --network none» (corrida `{run_id}`): "
        + "; ".join(pairs)
        + ". Son dos condiciones distintas: "
        "aquí, mientras se mide, siguen en marcha los contenedores de los otros niveles (con sus motores "
        "dentro) y el trabajo de CPU se intercala con los arranques. Compara los niveles dentro de este "
        "cuaderno, no con las cifras de otro."
    )


@needs_result
def modos(resultado: Resultado) -> None:
    """How each engine's level-2 container was opened (--privileged, or what replaced it here)."""
    nesting = resultado.meta.get("anidamiento") or {}
    lines = []
    for engine, note in (nesting.get("modos") or {}).items():
        name = ENGINE_LABEL.get(engine, engine)
        if note.get("modo") == "--privileged":
            lines.append(f"- **{name}**: el contenedor exterior arrancó con `--privileged`.")
        else:
            lines.append(
                f"- **{name}**: `--privileged` falló aquí con «{note.get('error_de_privileged', '')}». "
                f"{note.get('explicacion', '')} Se usó en su lugar: `{' '.join(note.get('opciones', []))}`, "
                "que da lo mismo salvo las capacidades que el host no tiene y los dispositivos del host."
            )
    skipped = resultado.meta.get("skipped_arms") or {}
    for key, why in skipped.items():
        lines.append(f"- Se omitió **{key}**: {why}")
    markdown("\n".join(lines) if lines else "Esta corrida no tuvo brazos anidados.")


@needs_result
def intentos(resultado: Resultado) -> None:
    """The ladder of attempts without --privileged: what was added at each step, and what happened."""
    attempts = ((resultado.meta.get("anidamiento") or {}).get("intentos_sin_privilegios")) or []
    if not attempts:
        markdown("Esta corrida no intentó anidar sin `--privileged` (hace falta Podman y el nivel 2).")
        return
    rows = [
        {
            "paso": i + 1,
            "contenedor exterior con": a["opciones"],
            "resultado": "funciona" if a["ok"] else "falla",
            "error (última línea)": a.get("error") or "—",
        }
        for i, a in enumerate(attempts)
    ]
    show(table(pd.DataFrame(rows), "Podman dentro de Podman sin --privileged, paso a paso"))
    lines = []
    for i, a in enumerate(attempts):
        if a["ok"]:
            continue
        if i and not attempts[i - 1]["ok"] and attempts[i - 1]["explicacion"] == a["explicacion"]:
            lines.append(
                f"**Paso {i + 1} ({a['opciones']})**: el mismo freno que en el paso anterior; esta "
                "concesión sola no lo quita."
            )
        else:
            lines.append(f"**Paso {i + 1} ({a['opciones']})**: {a['explicacion']}")
    for a in attempts:
        if a.get("ok") and a.get("mapa_uid_interior"):
            lines.append(
                f"**El paso que funcionó** ({a['opciones']}): el Podman de dentro es root pero no tiene "
                "CAP_SYS_ADMIN, así que metió su contenedor en un espacio de nombres de usuario propio, donde sí "
                "tiene todas las capacidades (que solo valen dentro de ese espacio). Su mapa de UID "
                f"(`/proc/self/uid_map`: dentro, fuera, cuántos) es `{a['mapa_uid_interior']}`."
            )
    markdown("\n\n".join(lines))


@needs_result
def memoria_disco(resultado: Resultado) -> None:
    """What an inner engine adds: the PSS of its processes and the size of its image store."""
    df = resultado.df[resultado.df["metric"].isin([levels.METRIC_PSS, levels.METRIC_STORE])]
    if df.empty:
        markdown("Esta corrida no midió memoria ni disco de un motor interior (no hubo brazos anidados).")
        return
    details = (resultado.meta.get("anidamiento") or {}).get("memoria_y_disco") or {}
    rows = []
    for (engine, variant), g in df.groupby(["engine", "variant"], sort=False):
        pss = g[g["metric"] == levels.METRIC_PSS]["value"]
        store = g[g["metric"] == levels.METRIC_STORE]["value"]
        procs = details.get(f"{engine}:{variant}", {}).get("procesos", [])
        names: dict[str, int] = {}
        for p in procs:
            names[p["nombre"]] = names.get(p["nombre"], 0) + 1
        rows.append(
            {
                "brazo": _brazo(engine, variant, resultado.meta),
                "PSS del motor interior (MiB)": fmt(pss.iloc[0], 1) if len(pss) else "—",
                "almacén de imágenes (MiB)": fmt(store.iloc[0], 1) if len(store) else "—",
                "procesos": ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in names.items()) or "—",
            }
        )
    show(table(pd.DataFrame(rows), "Memoria y disco que agrega un motor dentro de un contenedor"))


@needs_result
def veredictos(resultado: Resultado) -> None:
    """The four claims (the repository's experiment 4 and the chapter's closing note), each with its
    verdict, then the figures of this run behind them."""
    claims = experiments.judged(resultado)
    n = max((c.n for c in claims if not c.detail.get("observado")), default=0)
    markdown(too_few_banner(n))
    claims_list(claims)
    if experiments.read_run(exp, "llamadas") is None:
        missing_run("llamadas")
    behind_the_claims(_behind_the_claims(resultado))


def _behind_the_claims(resultado: Resultado) -> list[str]:
    """Sentences from this run's numbers: the other reading beside each claim (startup is judged from the
    host: the `run` alone; CPU on the work timed inside: with the `exec`s, as the repository timed it),
    level 3 against level 2, and how the ladder without --privileged ended."""
    lines = []
    start = level_ratios(resultado.df, levels.METRIC_START_INNER)
    work = level_ratios(resultado.df, levels.METRIC_WORK_E2E)
    for engine in dict.fromkeys([*start["engine"], *work["engine"]]):
        name = ENGINE_LABEL.get(engine, engine)
        for table_, variant, what in (
            (start, levels.PRIV, "arranque del `run` de dentro solo (sin los exec), nivel 2 / nivel 1"),
            (
                work,
                levels.PRIV,
                "trabajo de CPU cronometrado desde el host, con los exec (como el repositorio), "
                "nivel 2 / nivel 1",
            ),
            (start, "nivel3", "arranque del `run` de dentro, nivel 3 / nivel 2"),
        ):
            sel = table_[(table_["engine"] == engine) & (table_["variant"] == variant)]
            if not sel.empty:
                r = sel.iloc[0]
                lines.append(f"{name}, {what}: {fmt_ratio(r['ratio'], r['ic_bajo'], r['ic_alto'])}.")
    attempts = ((resultado.meta.get("anidamiento") or {}).get("intentos_sin_privilegios")) or []
    worked = [a for a in attempts if a.get("ok")]
    if worked:
        lines.append(f"Podman dentro de Podman sí funcionó sin `--privileged`, con {worked[0]['opciones']}.")
    if any("mount proc" in (a.get("error") or "") for a in attempts):
        lines.append(
            f"En el camino apareció el mismo error «mount proc» que registró {levels.REPO_MOUNT_PROC}."
        )
    return lines


@needs_result
def comparacion(resultado: Resultado) -> None:
    """The ratios per level the repository's «experiment 4» gives (second-hand, issue 14) next to this run's."""
    ref = reference.load(exp.EXPERIMENT)
    cmp = compare(resultado.df, resultado.meta, ref)
    if cmp.empty:
        markdown(f"No hay proporciones que comparar con {levels.REPO_FIGURES} en esta corrida.")
        return
    # The row that is a claim's own figure (level 2 over level 1 at startup, the repository's «+8 %» and
    # «+45 %») reads its verdict: one judgement per claim on the page, not a second one by agreement.
    judged = {c.detail.get("engine"): c for c in experiments.judged(resultado) if c.key == CLAIMED_ROW_KEY}

    def agrees(r) -> str:
        claim = judged.get(r["engine"])
        if r["medida"] == levels.METRIC_START and r["variant"] == levels.PRIV and claim is not None:
            return f"{verdict_words(claim)} (su veredicto, arriba)"
        return AGREEMENT.get(r["coincide"], "—") if r["coincide"] else "—"

    rows = [
        {
            "medida": MEDIDA[r["medida"]],
            "brazo": _brazo(r["engine"], r["variant"], resultado.meta),
            "frente a": _brazo(*r["base"].split(":"), resultado.meta),
            "repositorio (de segunda mano)": fmt_ratio(
                r["referencia"], digits=2 if r["referencia"] < 10 else 0
            ),
            "tus datos [IC 95 %]": fmt_ratio(r["tu_proporcion"], r["tu_ic_bajo"], r["tu_ic_alto"]),
            "¿coincide?": agrees(r),
        }
        for _, r in cmp.iterrows()
    ]
    show(
        table(
            pd.DataFrame(rows),
            f"Las cifras que da {levels.REPO_FIGURES} frente a tus datos "
            f"(proporciones entre niveles; «coincide»: tu IC ÷ su cifra, {AGREEMENT_MARGIN})",
        )
    )
