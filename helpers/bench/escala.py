"""Benchmark of experiment 2's machinery: prints figures, asserts nothing.

For each available engine: launch N idle containers (labelled with this benchmark's own run id),
then time
- the helpers' reading of their memory: inspect + cgroup files, and the cgroup files alone;
- `docker/podman stats --no-stream` on the same containers;
- removing all N (Engine.cleanup, which uses `podman rm -f -t 0`).

    python -m helpers.bench.escala [-n 20]
"""

from __future__ import annotations

import argparse
import secrets
import time

from .. import cgroups, images
from .. import engines as eng
from ..experiments import escala


def bench_engine(name: str, n: int, role: str = "alpine") -> dict:
    engine = eng.get_engine(name)
    image = images.resolve(role, engine)
    if image is None:
        raise SystemExit(f"{engine.display} no tiene la imagen «{role}»: ejecuta «make setup».")
    run_id = f"bench-escala-{secrets.token_hex(3)}"
    names = [f"curso-bench-escala-{run_id[-6:]}-{name}-{k}" for k in range(1, n + 1)]
    out: dict = {}
    try:
        env = engine.env()
        argvs = [escala.launch_argv(engine, image["name"], run_id=run_id, name=nm) for nm in names]
        out["lanzamiento_s"], _ = escala.launch(engine, argvs, 1, env)
        time.sleep(escala.SETTLE_SECONDS)
        start = time.perf_counter_ns()
        containers = escala.inspect_all(engine, names)
        readings, out["solo_cgroup_s"] = cgroups.read_many([c.cgroup for c in containers])
        out["inspect_y_cgroup_s"] = (time.perf_counter_ns() - start) / 1e9
        out["kb_por_contenedor"] = sum(r.usage for r in readings) / len(readings) / 1024
        out["stats_cli_s"], sizes = escala.stats_cli(engine, names)
    finally:
        start = time.perf_counter_ns()
        engine.cleanup(run_id)
        out["eliminacion_s"] = (time.perf_counter_ns() - start) / 1e9
        out["restantes"] = len(engine.list_labelled(run_id))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Banco de pruebas del experimento 2 (escala).")
    parser.add_argument("-n", type=int, default=20, help="contenedores por motor (por defecto 20)")
    args = parser.parse_args(argv)
    n = escala.Config.build(cantidades=[args.n]).cantidades[0]
    print(f"Banco del experimento 2: {n} contenedores en reposo por motor.")
    for name in eng.CONTAINER_ENGINES:
        engine = eng.get_engine(name)
        if not engine.available:
            print(f"- {engine.display}: se omite ({engine.reason})")
            continue
        r = bench_engine(name, n)
        print(f"- {engine.display}:")
        print(f"    lanzar {n} uno tras otro:               {r['lanzamiento_s']:.2f} s")
        print(
            f"    leer su memoria (inspect + cgroups):   {r['inspect_y_cgroup_s']:.3f} s "
            f"(solo los archivos del cgroup: {r['solo_cgroup_s'] * 1e3:.1f} ms; objetivo < 0,2 s)"
        )
        print(f"    «{name} stats --no-stream»:            {r['stats_cli_s']:.3f} s")
        print(f"    memoria de cgroup por contenedor:      {r['kb_por_contenedor']:.0f} KB")
        print(
            f"    borrar los {n} (rm -f, timeout 0):      {r['eliminacion_s']:.2f} s (objetivo < 5 s); "
            f"quedaron {r['restantes']}"
        )


if __name__ == "__main__":
    main()
