"""Set up the engines and images this machine can have. Run by `make setup` (python -m helpers.provision).

- Root on an apt system with an engine missing: install Debian's docker.io and podman (plus the
  tools the course uses: debootstrap, busybox-static, hyperfine).
- No Docker daemon answering: start dockerd in the background and wait for it.
- Podman: probe whether this host needs the containers.conf workaround; apply it only then.
- Images: make the "alpine" and "ubuntu" roles available in each engine (see helpers.images).
Where an engine cannot be had (not root, no apt, macOS) it prints one Spanish line and goes on:
bare metal plus reference data always work.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import engines, images, probes

APT_PACKAGES = {
    # command -> Debian package
    "dockerd": "docker.io",
    "podman": "podman",
    "debootstrap": "debootstrap",
    "busybox": "busybox-static",
    "hyperfine": "hyperfine",
    "file": "file",
    "chromium": "chromium",   # headless browser for the course's browser tests
}
DOCKERD_LOG = Path("/var/log/curso-dockerd.log")


def say(line: str) -> None:
    print(line, flush=True)


def _have(cmd: str) -> bool:
    return bool(images._tool(cmd))


def can_apt() -> bool:
    return sys.platform.startswith("linux") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def package_installed(package: str) -> bool:
    if not shutil.which("dpkg-query"):
        return False
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return result.returncode == 0 and "install ok installed" in result.stdout


def experiment_packages() -> list[str]:
    """Debian packages the registered experiments declare (DEBIAN_PACKAGES), not yet installed."""
    from . import experiments

    wanted = {pkg for module in experiments.all_experiments() for pkg in getattr(module, "DEBIAN_PACKAGES", ())}
    return sorted(pkg for pkg in wanted if not package_installed(pkg))


def install_missing() -> list[str]:
    missing = sorted({pkg for cmd, pkg in APT_PACKAGES.items() if not _have(cmd)} | set(experiment_packages()))
    if cmd_static_busybox_missing():
        missing.append("busybox-static")
    missing = sorted(set(missing))
    if not missing:
        return []
    if not can_apt():
        why = "no eres root" if sys.platform.startswith("linux") and shutil.which("apt-get") else \
              "este sistema no usa apt"
        say(f"[AVISO] Faltan {', '.join(missing)} y no puedo instalarlos ({why}); sigo con lo que hay: "
            "bare metal y datos de referencia.")
        return []
    say(f"Instalando con apt: {', '.join(missing)} (unos 30 s)…")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
    result = subprocess.run(["apt-get", "install", "-y", "-qq", *missing],
                            env=env, capture_output=True, text=True)
    if result.returncode != 0:
        say(f"[AVISO] apt-get no pudo instalar {', '.join(missing)}: {result.stderr.strip()[-300:]}")
    return missing


def cmd_static_busybox_missing() -> bool:
    return images.busybox_binary() is None


def docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


def start_dockerd(timeout: float = 60) -> bool:
    if docker_answers():
        return True
    dockerd = images._tool("dockerd")
    if dockerd is None:
        say("[AVISO] No hay daemon de Docker ni dockerd instalado: sigo sin Docker.")
        return False
    if os.geteuid() != 0:
        say("[AVISO] Docker no responde y solo root puede arrancar dockerd aquí: sigo sin Docker.")
        return False
    say("Arrancando dockerd en segundo plano…")
    log = open(DOCKERD_LOG, "ab")
    from . import runtimes

    subprocess.Popen([dockerd, *runtimes.dockerd_args()], stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if docker_answers():
            return True
        time.sleep(0.5)
    say(f"[AVISO] dockerd no respondió en {timeout:.0f} s (mira {DOCKERD_LOG}); sigo sin Docker.")
    return False


def build_probes() -> None:
    ok, message = probes.build(say)
    say(f"[ OK ] {message}" if ok else f"[AVISO] No se pudieron compilar las sondas: {message}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Prepara motores, imágenes y sondas del curso.")
    parser.add_argument("--sin-imagenes", action="store_true", help="no preparar imágenes")
    args = parser.parse_args(argv)
    install_missing()
    start_dockerd()
    engines.reset_cache()
    available = []
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        ok, why = engine.availability()
        if ok:
            available.append(name)
        else:
            say(f"[AVISO] {engine.display} no está disponible: {why} Sigo con lo demás.")
    if not args.sin_imagenes and available:
        images.ensure(images.ROLE_NAMES, available, log=say)
        if "podman" in available:
            podman = engines.get_engine("podman")
            probe_image = images.resolve("alpine", podman)
            needed = podman.probe_workaround(probe_image["name"] if probe_image else None)
            say("[ OK ] Podman: " + ("este host necesita el arreglo de containers.conf (aplicado)."
                                     if needed else "funciona sin arreglos."))
    build_probes()
    provision_experiments()
    return 0


def provision_experiments() -> None:
    """Each registered experiment's own provision(log) step (tools, images, kernels it builds once).
    A failure is reported in one Spanish line and set-up goes on: that experiment will skip what it
    lacks, saying why."""
    from . import experiments

    for module in experiments.all_experiments():
        step = getattr(module, "provision", None)
        if step is None:
            continue
        try:
            step(say)
        except Exception as exc:  # noqa: BLE001 - one experiment's set-up must not stop the others
            say(f"[AVISO] {module.TITLE}: la preparación falló ({type(exc).__name__}: {exc}); "
                "ese experimento omitirá lo que le falte.")


if __name__ == "__main__":
    sys.exit(main())
