"""`python -m helpers.clase empaquetar | demo`: the hand-in (make pack) and the demonstration class."""

from __future__ import annotations

import argparse
import sys
import zipfile

from .demo_class import demo
from .handin import empaquetar


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.clase", description="Entregas y comparación de la clase."
    )
    sub = parser.add_subparsers(dest="orden", required=True)
    pack = sub.add_parser("empaquetar", help="empaqueta en un zip tus últimas corridas con sus metadatos")
    pack.add_argument("--destino", default=None, help="carpeta del zip (por defecto build/entregas/)")
    pack.add_argument(
        "--alumno", default=None, help="tu nombre (por defecto usuario@máquina o $CURSO_ALUMNO)"
    )
    sub.add_parser("demo", help="genera la clase de demostración en build/clase_demo/")
    args = parser.parse_args(argv)
    if args.orden == "empaquetar":
        try:
            target = empaquetar(args.destino, alumno=args.alumno)
        except FileNotFoundError as exc:
            print(exc, file=sys.stderr)
            return 1
        with zipfile.ZipFile(target) as archive:
            names = [n for n in archive.namelist() if n.endswith("meta.json")]
        print(f"Entrega lista: {target}")
        noun = "corrida" if len(names) == 1 else "corridas"
        print(f"Contiene {len(names)} {noun}: " + ", ".join(n.split("/")[1] for n in names))
        print("Entrégale este archivo a tu profesor; él lo abre con notebooks/90_comparar_clase.ipynb.")
        return 0
    print(f"Clase de demostración en {demo()}")
    return 0
