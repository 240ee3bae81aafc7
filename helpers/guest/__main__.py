"""`python -m helpers.guest`: build (once) and boot the Debian 13 guest, run the course inside, and
say where its run folders are. Exit code 0 when the guest's course runs all ended well."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from . import availability
from .run import DEFAULT_TIMEOUT, run_guest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.guest",
        description=(
            "Corre el cuaderno 00 y el perfil rápido de la primera clase (02 y 03 como root; 01, 02 y 03 "
            "como «alumno») en una VM Debian 13 con cgroups v2."
        ),
    )
    parser.add_argument(
        "--limite", type=float, default=DEFAULT_TIMEOUT / 60, metavar="MIN", help="minutos como máximo"
    )
    parser.add_argument(
        "--resultado",
        type=Path,
        metavar="ARCHIVO",
        help="escribe aquí la carpeta de la corrida devuelta (la corrida en segundo plano de las pruebas)",
    )
    args = parser.parse_args(argv)
    # SIGTERM (the test session that started this run stopping it) ends the run as a Ctrl-C does:
    # QEMU's process group killed, its instance removed.
    signal.signal(signal.SIGTERM, _interrupt)
    ok, why = availability()
    if not ok:
        print(f"Se omite la VM Debian 13: {why}")
        return 0
    start = time.monotonic()
    result = run_guest(lambda line: print(line, flush=True), timeout=args.limite * 60)
    if args.resultado:
        args.resultado.write_text(result.folder + "\n")
    print(
        f"Huésped «{result.label}»: código {result.exit_code}, arranque {result.boot_seconds} s, "
        f"total {time.monotonic() - start:.0f} s. Corridas en {result.folder}"
    )
    return 0 if result.exit_code == 0 else 1


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"señal {signum}")


if __name__ == "__main__":
    sys.exit(main())
