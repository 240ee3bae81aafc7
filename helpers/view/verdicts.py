"""The words of a verdict, built from the claim's declared fields and its data (view.common re-exports
these; views call them there): one sentence per claim, the table of margins, how we measure, and the
load the machine was under while a run measured."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import results, stats
from ..experiments import figures as fg
from ..experiments import load, margins
from ..experiments import verdict as vd
from .numbers import approx, fmt_margin, fmt_value, fmt_value_interval, num, significant

# How every notebook words a verdict (experiments.verdict, the one rule), one term per idea.
VERDICT = {
    vd.SE_CONFIRMA: "se confirma",
    vd.NO_SE_SOSTIENE: "no se sostiene",
    vd.NO_CONCLUYENTE: "no concluyente con estas repeticiones",
    vd.INESTABLE: "medición inestable: repite",
    vd.SIN_DATOS: "no se puede juzgar",
    vd.NO_COMPARABLE: "no comparable",
    vd.BAJO_CARGA: "medición bajo carga: repite",
    vd.INDECIDIBLE: "sin veredicto posible",
}
WHY = {
    vd.SE_CONFIRMA: "Todo el intervalo cae dentro del margen de la afirmación.",
    vd.NO_SE_SOSTIENE: "Todo el intervalo cae fuera del margen de la afirmación.",
    vd.NO_CONCLUYENTE: "El intervalo se sale del margen sin quedar entero fuera de él: con más "
    "repeticiones se estrecharía.",
    vd.INESTABLE: "La dispersión de la medición aplasta a su mediana, así que la mediana no la resume: "
    "vuelve a ejecutar.",
    vd.SIN_DATOS: "No hay datos suficientes en esta corrida para juzgarla.",
    vd.NO_COMPARABLE: "",
    vd.BAJO_CARGA: "La carga de la máquina cambió entre rondas y menos de "
    f"{vd.MIN_N} rondas se midieron con la máquina tranquila: con una carga que dura varias rondas, "
    "el IC 95 % no cubre lo que dice. Cierra lo que esté usando la CPU y vuelve a ejecutar.",
    vd.INDECIDIBLE: "",  # its reason: the declaration's (Said.undecidable)
}
# «bajo carga» because the rounds that count are not independent (load.dependence): the why, the test.
DEPENDENT_WHY = (
    "Las rondas no son independientes entre sí (una carga que dura varias rondas, o una deriva que la "
    "presión de CPU no ve, como una CPU que baja su frecuencia al calentarse o una caché que se llena), y con "
    "rondas dependientes el IC 95 % no cubre lo que dice. Cierra lo que esté usando la CPU y vuelve a ejecutar."
)
DEPENDENCE_WORDS = {
    load.TREND: "las cifras por ronda suben o bajan con el orden de las rondas",
    load.WITH_LOAD: "las cifras por ronda siguen a {carga} de cada ronda",
    load.LAG1: "la cifra de cada ronda se parece a la de la ronda anterior",
}
# Agreement of this machine with the reference (figures.agreement), the same three outcomes.
AGREEMENT = {
    fg.COINCIDE: "coincide",
    fg.NO_COINCIDE: "no coincide",
    vd.NO_CONCLUYENTE: "no concluyente",
    vd.INESTABLE: "inestable: repite",
    vd.BAJO_CARGA: "bajo carga: repite",  # the page's claim on the same figure has no verdict either
    vd.SIN_DATOS: "—",
}
AGREEMENT_MARGIN = fmt_margin(vd.margin(fg.AGREEMENT_KIND, 1.0, "x"), "x")  # «de 0.8× a 1.25×»


PRACTICAL_REPS = vd.PRACTICAL_REPS  # beyond this a power calculation says «más de 200», not «unas 5 500»


def verdict_words(claim) -> str:
    """The verdict's words; too few repetitions say how many are needed, an inconclusive one about how
    many would decide it."""
    n, more = getattr(claim, "n", 0), getattr(claim, "more_reps", None)
    if vd.too_few_observed(claim):
        return too_few_observed(n)
    if claim.status == vd.SIN_DATOS and 0 < n < vd.MIN_N:
        return too_few(n, more or vd.MIN_N)
    words = VERDICT.get(claim.status, claim.status)
    if _power_shown(claim):  # a power calculation on this run: 2 digits, or «más de 200»
        how_many = f"más de {PRACTICAL_REPS}" if more == math.inf else f"unas {approx(more)}"
        words += f" (harían falta {how_many})"
    return words


def _reps(n: int) -> str:
    return "repetición" if n == 1 else "repeticiones"


def too_few(n: int, needed: int = vd.MIN_N) -> str:
    """The one wording of «too few repetitions»: «no se puede juzgar con N repeticiones; hacen falta M»
    (a claim, a figure, a direction measured n times); empty from MIN_N on."""
    if n >= vd.MIN_N:
        return ""
    return f"no se puede juzgar con {n} {_reps(n)}; hacen falta {needed}"


def too_few_observed(n: int) -> str:
    """The one wording of «too few observations» of a deterministic result (verdict.MIN_OBSERVED)."""
    times = "vez" if n == 1 else "veces"
    return (
        f"sin veredicto: observado {n} {times}; un resultado observado necesita al menos "
        f"{vd.MIN_OBSERVED} observaciones"
    )


def too_few_banner(n: int) -> str:
    """The run's banner when it has fewer than MIN_N repetitions (0 < n): figures, no verdicts (empty
    otherwise). Built on `too_few`, the one wording."""
    if not 0 < n < vd.MIN_N:
        return ""
    return (
        f"**Esta corrida tiene {n} {_reps(n)} por brazo: {too_few(n)}. Aquí se ven las cifras, sin "
        f"veredictos ni direcciones.** Para juzgar, vuelve a medir con `REPETICIONES = {vd.MIN_N}` o más."
    )


def _what_we_accept(claim) -> str:
    """«la fuente dice 0.5× y aceptamos de 0.4× a 0.625×», or for a threshold or a range, the margin."""
    kind, unit, region = getattr(claim, "kind", ""), claim.unit, claim.region
    margin = fmt_margin(region, unit)
    if kind == "range":
        return f"la fuente da {margin}, y ese es el margen"
    if kind in ("about", "percent_about", "") and not stats.any_nan(claim.claimed):
        return f"la fuente dice {fmt_value(claim.claimed, unit)} y aceptamos {margin}"
    return f"aceptamos {margin}"


STATISTIC_WORDS = {fg.MEDIAN: "mediana", fg.OF_MEDIANS: "cifra de las medianas"}


def _statistic(claim, detail: dict) -> str:
    """What the claim's figure is, from the code its builder left (figures.MEDIAN, figures.OF_MEDIANS)
    or its quantity naming a median; otherwise «cifra» (an IQR ratio, a range ratio, a count)."""
    said = STATISTIC_WORDS.get(detail.get("statistic")) or (
        "mediana" if "mediana" in (claim.quantity or "").lower() else "cifra"
    )
    if detail.get("rondas"):
        return f"{said} de las cifras por ronda" if said == "mediana" else "cifra calculada ronda a ronda"
    return said


def claim_sentence(claim) -> str:
    """The one Spanish sentence of a judged claim, from its declared fields (verdict.Said) and its
    data: the claim as its source said it, the source (and where in it), the verdict, the figure
    measured with its IC 95 % and n, the margin, why, and the declared note."""
    where = f", {claim.where}" if getattr(claim, "where", "") else ""
    parts = [f"**«{claim.statement}» ({claim.source}{where}) — {verdict_words(claim)}.**"]
    detail = getattr(claim, "detail", {}) or {}
    quantity = getattr(claim, "quantity", "") or "la medición"
    quantity = quantity[:1].upper() + quantity[1:]
    by_round = _statistic(claim, detail)
    counted = ("ronda" if claim.n == 1 else "rondas") if detail.get("rondas") else _reps(claim.n)
    if detail.get("observado"):
        parts.append(
            f"Observado: {quantity[:1].lower() + quantity[1:]}, {detail.get('exitos', 0)} de "
            f"{detail.get('veces', 0)} veces."
        )
    elif claim.status == vd.SIN_DATOS and 0 < claim.n < vd.MIN_N:
        parts.append(
            f"{quantity} = {fmt_value_interval(claim.value, float('nan'), float('nan'), claim.unit)} "
            f"({by_round}, n = {claim.n} {counted}), sin IC 95 %: con menos de {vd.MIN_N} ningún "
            f"intervalo llega al 95 %; {_what_we_accept(claim)}."
        )
    elif detail.get("sin_cifra"):  # judged against a baseline unstable on its own: no figure from it
        parts.append("La línea base varió tanto por sí sola que no se calcula ninguna cifra frente a ella.")
    elif claim.status == vd.BAJO_CARGA:
        parts.append(
            f"{quantity} = {fmt_value(claim.value, claim.unit)} ({by_round}, n = {claim.n} {counted}, "
            f"sin IC 95 %: {load_reason(detail)}); {_what_we_accept(claim)}."
        )
    elif claim.status not in (vd.SIN_DATOS, vd.NO_COMPARABLE):
        size = resolved_size(claim)
        parts.append(
            f"{quantity} = {fmt_value_interval(claim.value, claim.low, claim.high, claim.unit)} "
            f"({by_round} e IC 95 %, n = {claim.n} {counted}{'; ' + size if size else ''}); "
            f"{_what_we_accept(claim)}."
        )
    if detail.get(vd.BESIDE):
        parts.append(absolute_beside(detail[vd.BESIDE]))
    if claim.status == vd.INDECIDIBLE:
        parts.append(claim.said.undecidable)
    if detail.get("rondas_tranquilas") and claim.status != vd.BAJO_CARGA:
        parts.append(
            f"La carga de la máquina cambió entre rondas ({load_range(detail)}): la cifra y su IC salen "
            f"de las {detail['rondas_tranquilas']} rondas con la máquina más tranquila."
        )
    why = (
        DEPENDENT_WHY
        if claim.status == vd.BAJO_CARGA and detail.get("dependencia")
        else WHY.get(claim.status, "")
    )
    if why and not detail.get("observado") and not (claim.status == vd.SIN_DATOS and claim.n > 0):
        parts.append(why)
    note = getattr(claim, "note", "")
    if note:
        parts.append(note)
    return " ".join(parts)


def absolute_beside(shown: dict) -> str:
    """This machine's absolute figure beside a claim, unjudged (verdict.beside): «En esta máquina, sin
    juzgar: 57.96 ms [54.16, 60.98] (mediana e IC 95 %, n = 6 repeticiones).»"""
    value, low, high, n, unit = (shown.get(k) for k in ("valor", "bajo", "alto", "n", "unidad"))
    interval = not stats.any_nan(low, high)
    figure = fmt_value_interval(value, low, high, unit) if interval else fmt_value(value, unit)
    what = "mediana e IC 95 %" if interval else f"mediana, sin IC 95 %: hacen falta {vd.MIN_N}"
    return f"En esta máquina, sin juzgar (no comparable): {figure} ({what}, n = {n} {_reps(n)})."


def smallest_effect(resolved: float, unit: str) -> str:
    """The smallest effect a run tells apart (verdict.resolution), as a size: «÷/× 1.08» on a ratio,
    «±2.3 puntos» on a percentage, «±3.4 ms» in a unit (as many digits as its IC). What it means is
    said once under the list (RESOLUTION_NOTE)."""
    if unit == "x":
        return f"÷/× {num(resolved, 2)}"
    if unit == "%":
        return f"±{num(resolved, significant(resolved, 2))} puntos"  # as many digits as its IC: «±13», «±2.8»
    return f"±{fmt_value(float(f'{resolved:.2g}'), unit).lstrip('+')}"  # two digits, as its IC: «±9.3 min»


# What «distingue ÷/× 1.08» in a claim's sentence means, said once under a list of claims
RESOLUTION_WORD = "distingue"
RESOLUTION_NOTE = (
    f"_«{RESOLUTION_WORD} ÷/× 1.08» o «{RESOLUTION_WORD} ±2 puntos», junto a una cifra: lo más pequeño que "
    "esta corrida distingue alrededor de ella, la mitad de su IC 95 %. Una afirmación cuyo margen es más "
    "estrecho que eso no se confirma con estas repeticiones; para refutarla, su cifra tiene que quedar más "
    "lejos que eso de su margen._"
)


# What «harían falta unas N» after «no concluyente» means, said once under a list of claims
POWER_NOTE = (
    f"_«harían falta unas N», tras «no concluyente»: las repeticiones con las que una corrida llegaría a un "
    f"veredicto {round(stats.POWER * 10)} de cada 10 veces si sus rondas se comportaran como las de esta (un "
    "cálculo de potencia con su mediana y su dispersión, y el mismo IC 95 %). Es una estimación para "
    "planear la próxima corrida: una corrida corta no basta para decir que ningún número la decidiría._"
)


def list_note(claims) -> str:
    """What a list of claim sentences says once under it: RESOLUTION_NOTE when one of them gives its
    resolution («distingue …»), POWER_NOTE when one says how many repetitions would decide it; else ""."""
    notes = [
        note
        for note, said in (
            (RESOLUTION_NOTE, any(resolved_size(c) for c in claims)),
            (POWER_NOTE, any(_power_shown(c) for c in claims)),
        )
        if said
    ]
    return "".join("\n\n" + note for note in notes)


def _power_shown(claim) -> bool:
    """Whether verdict_words says «harían falta unas N» for this claim (a power calculation)."""
    return claim.status == vd.NO_CONCLUYENTE and bool(getattr(claim, "more_reps", None))


def resolved_size(claim) -> str:
    """«distingue ÷/× 1.08» for a claim judged on an interval with its resolution in detail, else ""."""
    resolved = (getattr(claim, "detail", {}) or {}).get("resolucion")
    if claim.status not in (vd.SE_CONFIRMA, vd.NO_SE_SOSTIENE, vd.NO_CONCLUYENTE, vd.INDECIDIBLE):
        return ""
    if resolved is None or stats.any_nan(resolved):
        return ""
    return f"{RESOLUTION_WORD} {smallest_effect(resolved, claim.unit)}"


LOAD_WORDS = {
    results.LOAD_PRESSURE: ("la presión de CPU", " %"),
    results.LOAD_AVERAGE: ("el promedio de carga", " procesos"),
    results.STEAL: ("el tiempo robado por el hipervisor", " %"),
    results.OTHER_CPU: ("la CPU que usó el resto de la máquina (sin esta corrida)", " %"),
}


def load_range(detail: dict) -> str:
    """«la presión de CPU fue del 12 % al 40 % según la ronda», from a claim's detail (experiments/load.py)."""
    metric = str(detail.get("carga_metrica", ""))
    base = next((b for b in LOAD_WORDS if metric == b or metric.startswith(b + "_")), results.LOAD_PRESSURE)
    what, unit = LOAD_WORDS[base]
    digits = 2 if base == results.LOAD_AVERAGE else 1
    low, high = num(detail.get("carga_min"), digits), num(detail.get("carga_max"), digits)
    return f"{what} fue de {low}{unit} a {high}{unit} según la ronda"


def load_reason(detail: dict) -> str:
    """Why a claim «bajo carga» has no interval, from its detail: the test that found its rounds
    dependent and its p (load.dependence), or the load's range over the rounds (`load_range`)."""
    test = detail.get("dependencia")
    if not test:
        return load_range(detail)
    metric = str(detail.get("dependencia_metrica", ""))
    base = next((b for b in LOAD_WORDS if metric == b or metric.startswith(b + "_")), results.LOAD_PRESSURE)
    words = DEPENDENCE_WORDS[test].format(carga=LOAD_WORDS[base][0])
    p = float(detail.get("dependencia_p", float("nan")))
    shown = "p < 0.001" if p < 0.001 else f"p = {num(p, 3)}"
    return f"{words} (τ de Kendall, {shown}, umbral {num(load.ALPHA, 3)})"


# ---------------------------------------------------------------- how we measure, for every notebook
KIND_LABEL = {
    "about": "«unas k veces», una cifra",
    "percent_about": "«un p % más», un efecto",
    "no_difference": "«casi igual»",
    "adds": "«añade costo»",
    "reduces": "«ahorra»",
    "at_least": "«al menos» un umbral",
    "at_most": "«como mucho» un umbral",
    "range": "un rango publicado",
    "observed": "un resultado que funciona o falla",
}


def margins_frame(kinds=None) -> pd.DataFrame:
    """The one table of margins (verdict.MARGINS), in Spanish: one row per kind of claim (only `kinds`,
    in table order, if given)."""
    wanted = [k for k in vd.MARGINS if kinds is None or k in set(kinds)]
    return pd.DataFrame(
        [
            {
                "Tipo de afirmación": KIND_LABEL[k],
                "Cómo lo dice la fuente": vd.MARGINS[k].said,
                "Qué aceptamos (el margen)": vd.MARGINS[k].accepted,
                "Ejemplo": vd.MARGINS[k].example,
            }
            for k in wanted
        ]
    )


def _pct(p: float) -> str:
    return f"{num(100 * p, 1)} %"


def method_sentence() -> str:
    """How every interval and verdict of the course is computed, in one Spanish paragraph, with the
    coverage the simulation test measured (stats.TESTED_COVERAGE)."""
    n0 = vd.MIN_N
    text = (
        f"**Cómo medimos.** Cada cifra lleva su intervalo de confianza del 95 % (IC 95 %), calculado "
        f"sin suponer ninguna distribución. La mayoría son medianas: con los valores ordenados, el IC va de uno a otro "
        f"de ellos según la prueba del signo (con {n0} valores, del menor al mayor: cubre la mediana el "
        f"{_pct(stats.coverage(n0))} de las veces). Cuando dos brazos se midieron en las mismas rondas, "
        f"la proporción o la diferencia se calcula ronda a ronda y se toma su mediana con el mismo "
        f"intervalo. Las rondas intercalan los brazos, cada una en un orden barajado de nuevo, para que una "
        f"deriva lenta y lo que un brazo deja al siguiente no caigan siempre sobre el mismo brazo; la carga de la "
        f"máquina que vio cada ronda se registra con la corrida (presión de CPU, tiempo robado y la CPU que "
        f"usó el resto de la máquina, sin esta corrida, sus motores, sus contenedores ni sus VM): no "
        f"suponemos que se cancele. La presión de CPU cuenta también nuestro propio trabajo, así que solo "
        f"deciden la otra CPU y el tiempo robado: cuentan las rondas en que el resto de la máquina usó "
        f"como mucho el {num(load.OTHER_QUIET)} % de la CPU, y si el tiempo robado cambió entre rondas "
        f"más de {num(load.VARIED[results.STEAL])} puntos, solo las que quedan a "
        f"{num(load.QUIET_BAND[results.STEAL])} puntos o menos de la menos cargada (en una corrida que no "
        f"registró la otra CPU, la presión de CPU con ese mismo criterio); una cifra que la CPU no mueve (memoria, "
        f"tamaño en disco) no pasa por esta puerta; si no llegan a {n0}, la afirmación dice "
        f"«{VERDICT[vd.BAJO_CARGA]}» en lugar de un veredicto. También lo dice cuando las cifras por ronda "
        f"que cuentan dependen del orden de las rondas (una tendencia), de la carga de cada ronda o de la "
        f"ronda anterior (τ de Kendall de cada una, con p ≤ {num(load.ALPHA, 3)}): con rondas dependientes "
        f"el IC no cubre lo que dice (una carga que suma tiempo no desaparece al dividir por ronda). Con {n0} rondas esas pruebas "
        f"solo ven rondas en un orden perfecto. Con brazos independientes (no medidos en las mismas rondas), cada mediana "
        f"lleva su intervalo a un nivel más alto (con dos brazos, √95 % ≈ 97.5 %, y hacen falta "
        f"{stats.min_n(stats.LEVEL**0.5)} valores por brazo) y la cifra toma su menor y su mayor valor entre "
        f"esos intervalos: un IC conservador, que cubre al menos el 95 %. Con menos de "
        f"{n0} repeticiones no hay veredicto. Otras cifras (una pendiente, un cruce, un cociente de "
        f"dispersiones) las calcula su experimento con su propio IC 95 %, y la frase de cada afirmación "
        f"dice qué cifra es. Un veredicto compara el IC con el margen de la "
        f"afirmación (tabla de márgenes): dentro, «se confirma»; entero fuera, «no se sostiene»; si no, "
        f"«no concluyente». Un rango publicado se muestra como rango, sin remuestrear."
    )
    tested = stats.TESTED_COVERAGE
    if tested:
        worst = {
            n: min(d[n] for d in tested.values() if n in d)
            for n in sorted({n for d in tested.values() for n in d})
        }
        text += (
            " Una simulación reproducible (tests/core/test_coverage.py) comprobó que el IC 95 % cubre "
            "el valor verdadero al menos "
            + " y ".join(f"el {_pct(c)} de las veces con n = {n}" for n, c in worst.items())
            + ", en datos asimétricos (log-normales), de cola pesada (Pareto, t de Student), bimodales "
            "y con dispersiones desiguales, para medianas, proporciones y diferencias por ronda (también "
            "con deriva por ronda) y para brazos independientes."
        )
    gate = load.OTHER_TESTED
    ns = sorted(gate["reposo_sin_veredicto"])

    def by_n(name: str) -> str:
        return " y ".join(f"el {_pct(gate[name][n])}" for n in ns)

    def coverage_of(figure: str) -> str:
        return by_n(f"invisible_cobertura_{figure}")

    with_n = f"con n = {' y '.join(str(n) for n in ns)}"
    text += (
        " Una simulación reproducible de esa puerta (tests/core/test_coverage.py), " + with_n + ": en una "
        f"máquina en reposo dejó sin veredicto {by_n('reposo_sin_veredicto')} de las afirmaciones (las "
        "pruebas de dependencia, que a veces disparan sin motivo); una carga que no para y que el contador "
        f"ve (un bucle ocupado en media máquina) dejó sin veredicto {by_n('persistente_sin_veredicto')}; "
        "una que va y viene durante varias rondas: el IC cubrió el valor de la máquina tranquila o no hubo "
        f"veredicto {by_n('intermitente_cubre_o_sin_veredicto')} de las veces. Una carga que no para y que "
        "el contador no ve (el ancho de banda de memoria, un reloj que el firmware frena) no la para ninguna "
        "puerta. En el peor de los casos simulados, las diferencias por ronda la cancelan (sus IC cubrieron "
        f"{coverage_of('diferencia_por_ronda')}), las proporciones solo en parte "
        f"({coverage_of('proporcion_por_ronda')}) y la mediana de un brazo, nada ({coverage_of('mediana')}). "
        "Por eso se mide con la máquina en reposo, y por eso lo decimos."
    )
    under = load.TESTED
    if "tendencia_detectada" in under:
        text += (
            " Una deriva de la proporción a lo largo de la corrida de 6 veces su propia dispersión, que "
            "ningún contador ve, quedó sin veredicto "
            + " y ".join(
                f"el {_pct(under['tendencia_detectada'][n])}" for n in sorted(under["tendencia_detectada"])
            )
            + " de las veces con n = "
            + " y ".join(str(n) for n in sorted(under["tendencia_detectada"]))
            + ": con pocas rondas, la prueba de tendencia solo ve las derivas fuertes."
        )
    return text


def resolution_sentence(claims) -> str:
    """What this run's noise lets a verdict tell apart, from the page's own claims: the median half-width
    of the IC 95 % of its ratios (as a factor) or, on a page of percentages, of its percentages (in
    points), measured with MIN_N rounds or more; and about how many rounds the narrowest margin, «casi
    igual» (±SAME), would need with this noise to confirm a figure on its centre 8 times in 10 (a power
    calculation with the page's median spread, `stats.rounds_to_decide`). A claim «bajo carga» is left
    out: its IC does not cover what it says. Empty when the page has none of either."""
    ratios, points = [], []
    for c in claims:
        if c.n < vd.MIN_N or stats.any_nan(c.low, c.high) or c.status == vd.BAJO_CARGA:
            continue
        spread = c.estimate.spread
        if c.unit == "x" and min(c.low, c.high) > 0:
            ratios.append(((math.log(c.high) - math.log(c.low)) / 2, c.n, spread / c.value))
        elif c.unit == "%":
            points.append(((c.high - c.low) / 2, c.n, spread))
    if not ratios and not points:
        return ""
    ratio_page = len(ratios) >= len(points)
    widths = ratios if ratio_page else points
    half, n = (float(np.median([w[i] for w in widths])) for i in (0, 1))
    spreads = [w[2] for w in widths if not stats.any_nan(w[2])]
    n = int(n)
    if len(widths) == 1:
        which = "la única proporción" if ratio_page else "el único porcentaje"
    else:
        which = (
            f"la mediana de las {len(widths)} proporciones"
            if ratio_page
            else (f"la mediana de los {len(widths)} porcentajes")
        )
    spans = (
        f"÷/× {num(math.exp(half), 2)} alrededor de su cifra ({which}"
        if ratio_page
        else f"±{num(half, 1)} puntos alrededor de su cifra ({which}"
    )
    text = (
        f"**Lo que este ruido deja decidir.** En esta corrida, el IC 95 % abarca {spans} de esta página, con "
        f"n = {n}): una afirmación solo se confirma si su margen es más ancho que eso, y solo se refuta si su "
        "cifra queda más lejos que eso de su margen."
    )
    centre = 1.0 if ratio_page else 0.0
    region = vd.level_region(centre)
    shown = fmt_margin(region, "x" if ratio_page else "%")
    # A figure exactly on «casi igual»'s centre, as noisy as this page's typical one (a relative spread
    # on a ratio page): the rounds that would confirm it 8 times in 10 (stats.rounds_to_decide).
    typical = stats.Estimate(centre, n=n, spread=float(np.median(spreads)) if spreads else stats.NAN)
    if half <= (math.log(1 + margins.SAME) if ratio_page else margins.SAME * 100):
        return text + f" Alcanza hasta para el margen más estrecho, «casi igual» ({shown})."
    need = stats.rounds_to_decide(typical, region, cap=PRACTICAL_REPS)
    if need is None:  # no figure of this page is one sample's median: nothing to calculate from
        return text
    if need == math.inf:
        return text + (
            f" El margen más estrecho, «casi igual» ({shown}), pediría más de {PRACTICAL_REPS} rondas: "
            "con este ruido, esta máquina no lo decide."
        )
    return text + (
        f" El margen más estrecho, «casi igual» ({shown}), pediría unas {approx(need)} rondas para "
        f"confirmar una cifra en su centro {round(stats.POWER * 10)} de cada 10 veces."
    )


def load_sentence(meta: dict | None) -> str:
    """One Spanish sentence on the machine's load during a run, from meta.json's «carga» (written by
    runner.measure_rounds): the median and the maximum over its rounds of the CPU pressure (or of the
    load average where the kernel has no PSI), and the steal time when the hypervisor took any."""
    load = (meta or {}).get("carga")
    if not load or load.get("mediana") is None:
        return (
            "**Carga de la máquina.** Esta corrida no registró la carga de la máquina durante sus rondas "
            "(se hizo antes de que el curso la midiera, o no completó ninguna ronda): no sabemos cuánto trabajo de fondo compartió la CPU "
            "con la medición."
        )
    rounds = load.get("rondas", 0)
    rounds = f"{rounds} ronda" if rounds == 1 else f"sus {rounds} rondas"
    if load.get("unidad") == "%":
        what = (
            f"la presión de CPU (la parte de cada ronda en que alguna tarea esperó un núcleo libre, "
            f"incluida la que pone la propia medición) tuvo una mediana del {num(load['mediana'], 1)} % y "
            f"un máximo del {num(load['maximo'], 1)} % en {rounds}"
        )
    else:
        what = (
            f"este núcleo no da la presión de CPU; el promedio de carga de 1 minuto al terminar cada ronda "
            f"tuvo una mediana de {num(load['mediana'], 2)} y un máximo de {num(load['maximo'], 2)} "
            f"procesos en {rounds}"
        )
    steal = load.get("robo_maximo_pct")
    if steal and round(steal, 1) > 0:
        what += f", y el hipervisor se llevó hasta el {num(steal, 1)} % del tiempo de CPU (steal)"
    elif steal:  # never «hasta el 0.0 %»
        what += ", y el hipervisor no se llevó ni el 0.1 % del tiempo de CPU (steal)"
    return f"**Carga de la máquina.** Mientras medía esta corrida, {what}."
