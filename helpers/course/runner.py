"""The whole course headless: `make course` (python -m helpers.course [--rapido] [--parametros JSON]).

Every notebook in notebooks/ whose name starts with two digits and an underscore runs in name order
with papermill into build/notebooks/, then nbconvert renders it to build/html/. build/html/index.html
gives a Spanish overview: one link per notebook, its status (ok / fallido, with the failing cell) and
the host and engine metadata of the run. One failing notebook does not stop the others; the command
exits non-zero and names the failures. CURSO_SIN_INTERFAZ=1 is set for the kernels, so no notebook
waits for a widget.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import logging
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from ..paths import PROJECT_ROOT
from .execute import NotebookResult, Reporter, run_notebook
from .notebooks import discover, parameters_for
from .pages import render_instructor_kit, run_metadata, write_index


# ---------------------------------------------------------------- the whole course
def run_course(
    *,
    notebooks_dir: Path | str | None = None,
    build: Path | str | None = None,
    quick: bool = False,
    overrides: dict | None = None,
    only: list[str] | None = None,
    timeout: float | None = None,
    stream=None,
) -> list[NotebookResult]:
    notebooks_dir = Path(notebooks_dir or PROJECT_ROOT / "notebooks")
    build = Path(build or PROJECT_ROOT / "build")
    overrides = dict(overrides or {})
    saved_env = {k: os.environ.get(k) for k in ("CURSO_SIN_INTERFAZ", "MPLBACKEND", "PYTHONPATH")}
    os.environ["CURSO_SIN_INTERFAZ"] = "1"  # inherited by every kernel: never wait for a widget
    # Every kernel imports the helpers of this checkout (a second working tree, a clone), not whatever
    # copy the virtual environment was installed from.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), saved_env["PYTHONPATH"]]))
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    logging.getLogger("papermill").setLevel(logging.WARNING)
    report = Reporter(build / "course.log", stream)
    started = _dt.datetime.now(_dt.timezone.utc)
    t0 = time.monotonic()
    try:
        paths = discover(notebooks_dir)
        if only:
            paths = [p for p in paths if any(p.stem.startswith(o) or p.name == o for o in only)]
        report(
            f"Curso: {len(paths)} cuadernos en {notebooks_dir} -> {build}"
            + (" (perfil rápido)" if quick else "")
        )
        if not paths:
            report("No hay cuadernos que ejecutar.")
        planned = [(p, parameters_for(p, quick=quick, overrides=overrides)) for p in paths]
        used = {name for _, params in planned for name in params}
        unknown = sorted(set(overrides) - used)
        if unknown:
            report(f"Aviso: ningún cuaderno declara {', '.join(unknown)}; no se inyecta.")
        results = []
        for number, (path, params) in enumerate(planned, 1):
            report(f"== {number}/{len(planned)} {path.name}")
            results.append(run_notebook(path, build, params, report, timeout=timeout))
        report("Metadatos de la máquina y los motores")
        meta = run_metadata()
        elapsed = time.monotonic() - t0
        kit = render_instructor_kit(build / "docente")  # beside html/, never linked from it
        write_index(
            build / "html" / "index.html",
            results,
            meta,
            quick=quick,
            overrides=overrides,
            started=f"{started:%Y-%m-%d %H:%M} UTC",
            seconds=elapsed,
        )
        (build / "course.json").write_text(
            json.dumps(
                {
                    "started": started.isoformat(timespec="seconds"),
                    "seconds": round(elapsed, 1),
                    "quick": quick,
                    "overrides": overrides,
                    "notebooks": [asdict(r) for r in results],
                    "docente": str(kit) if kit else None,
                    **meta,
                },
                indent=2,
                ensure_ascii=False,
                default=str,
            ),
            encoding="utf-8",
        )
        failed = [r for r in results if not r.ok]
        report(f"Índice: {build / 'html' / 'index.html'}")
        if kit:
            report(f"Material del profesor, aparte (el índice de los estudiantes no lo enlaza): {kit}")
        if failed:
            report(
                f"FALLARON {len(failed)} de {len(results)} cuadernos: "
                + "; ".join(
                    f"{r.name} (celda In [{r.failed_cell}])" if r.failed_cell else r.name for r in failed
                )
            )
        else:
            report(f"Listo: {len(results)} cuadernos ok en {elapsed:.0f} s.")
        return results
    finally:
        report.close()
        for key, value in saved_env.items():  # restore the caller's environment
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.course",
        description="Ejecuta todos los cuadernos del curso sin interfaz y genera el HTML en build/html/.",
    )
    parser.add_argument(
        "--rapido",
        action="store_true",
        help="perfil rápido: pocas repeticiones, para probar el recorrido en un par de minutos",
    )
    parser.add_argument(
        "--parametros",
        default="{}",
        metavar="JSON",
        help="parámetros para todos los cuadernos, p. ej. '{\"REPETICIONES\": 5}'; cada "
        "cuaderno recibe solo los que declara",
    )
    parser.add_argument(
        "--solo", nargs="*", metavar="CUADERNO", help="ejecutar solo estos (p. ej. 01 02_escala)"
    )
    parser.add_argument("--cuadernos", default=None, help="carpeta de los cuadernos (por defecto notebooks/)")
    parser.add_argument("--salida", default=None, help="carpeta de salida (por defecto build/)")
    parser.add_argument(
        "--limite-celda", type=float, default=None, metavar="S", help="tiempo máximo por celda, en segundos"
    )
    args = parser.parse_args(argv)
    try:
        overrides = json.loads(args.parametros or "{}")
        if not isinstance(overrides, dict):
            raise ValueError("debe ser un objeto JSON")
    except ValueError as exc:
        print(f"--parametros no es un objeto JSON válido ({exc}): {args.parametros}", file=sys.stderr)
        return 2
    results = run_course(
        notebooks_dir=args.cuadernos,
        build=args.salida,
        quick=args.rapido,
        overrides=overrides,
        only=args.solo,
        timeout=args.limite_celda,
    )
    if not results:
        return 1
    return 1 if any(not r.ok for r in results) else 0
