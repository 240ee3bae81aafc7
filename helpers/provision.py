"""Set up the engines and images this machine can have. Run by `make setup` (python -m helpers.provision).

- Root on an apt system with an engine missing: install Debian's docker.io and podman (plus the
  tools the course uses: mmdebstrap, uidmap, slirp4netns, busybox-static, hyperfine).
- No Docker daemon answering: start dockerd in the background and wait for it.
- Podman: probe whether this host needs the containers.conf workaround; apply it only then.
- Images: make the "alpine" and "ubuntu" roles available in each engine (see helpers.images).
Where an engine cannot be had (not root, no apt, macOS) it prints one Spanish line and goes on:
bare metal plus reference data always work. Every step that needs root says so in one Spanish line
(with the command an administrator would run) and steps aside; set-up always exits 0.

What went wrong is kept, by step (`PROBLEMS`): every exception a step swallowed (with where it was
raised) and every «[AVISO]» line said while the step ran. «[FALTA]» marks what set-up does not provide
(a Go or Rust toolchain): left out, not failed. `--estricto` lists the problems and exits 1 if there
was any: the set-up test runs it as root, where nothing should go wrong (tests/core/test_provision.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from . import engines, experiments, images, probes, setup_times, system
from .engines import kubernetes_build, lxd_setup, runtimes

APT_PACKAGES = {
    # command -> Debian package
    "dockerd": "docker.io",
    "podman": "podman",
    "mmdebstrap": "mmdebstrap",  # the "ubuntu" stand-in, with or without root (helpers.images)
    "newuidmap": "uidmap",  # rootless Podman and mmdebstrap --mode=unshare
    "slirp4netns": "slirp4netns",  # rootless Podman's network
    "busybox": "busybox-static",
    "hyperfine": "hyperfine",
    "file": "file",
    "chromium": "chromium",  # headless browser for the course's browser tests
}
DOCKERD_LOG = Path("/var/log/curso-dockerd.log")


WARNING = "[AVISO]"  # a step that should have worked here and did not («[FALTA]»: not set-up's to provide)
OUTSIDE_STEPS = "La preparación"  # what is said between steps


@dataclass
class Problems:
    """What went wrong during set-up, one line per problem, each naming its step."""

    step: str = OUTSIDE_STEPS
    found: list[str] = field(default_factory=list)

    def heard(self, line: str) -> None:
        if line.lstrip().startswith(WARNING):
            self.found.append(f"{self.step}: {line.strip()}")

    def raised(self, exc: BaseException) -> None:
        frames = traceback.extract_tb(exc.__traceback__)
        where = (
            f" en {Path(frames[-1].filename).name}:{frames[-1].lineno} ({frames[-1].name})" if frames else ""
        )
        self.found.append(f"{self.step}: {type(exc).__name__}: {str(exc)[-300:]}{where}")


PROBLEMS = Problems()
STOPWATCH = setup_times.Stopwatch()  # how long each step took (setup_times.HISTORY)


def say(line: str) -> None:
    PROBLEMS.heard(line)
    print(line, flush=True)


def _have(cmd: str) -> bool:
    return bool(images.find_tool(cmd))


def can_apt() -> bool:
    return sys.platform.startswith("linux") and system.is_root() and shutil.which("apt-get") is not None


def package_installed(package: str) -> bool:
    if not shutil.which("dpkg-query"):
        return False
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return result.returncode == 0 and "install ok installed" in result.stdout


def experiment_packages() -> list[str]:
    """Debian packages the registered experiments declare (DEBIAN_PACKAGES), not yet installed."""
    wanted = {
        pkg for module in experiments.all_experiments() for pkg in getattr(module, "DEBIAN_PACKAGES", ())
    }
    return sorted(pkg for pkg in wanted if not package_installed(pkg))


def install_missing() -> list[str]:
    missing = sorted(
        {pkg for cmd, pkg in APT_PACKAGES.items() if not _have(cmd)}
        | set(experiment_packages())
        | {pkg for pkg in kubernetes_build.DEBIAN_PACKAGES if not package_installed(pkg)}
    )
    if cmd_static_busybox_missing():
        missing.append("busybox-static")
    missing = sorted(set(missing))
    if missing:
        apt_install(missing)
    return missing


def apt_install(packages: list[str]) -> bool:
    """Install Debian packages with apt-get (root only); one Spanish line when it cannot. True if apt-get
    ran and succeeded."""
    if not can_apt():
        if sys.platform.startswith("linux") and shutil.which("apt-get"):
            say(
                f"[AVISO] Faltan {', '.join(packages)} e instalarlos necesita root; sigo con lo que hay. "
                f"Un administrador puede instalarlos con «sudo apt-get install {' '.join(packages)}»."
            )
        else:
            say(
                f"[AVISO] Faltan {', '.join(packages)} y este sistema no usa apt; sigo con lo que hay: "
                "bare metal y datos de referencia."
            )
        return False
    say(f"Instalando con apt: {', '.join(packages)} (unos 30 s)…")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
    result = subprocess.run(
        ["apt-get", "install", "-y", "-qq", *packages], env=env, capture_output=True, text=True
    )
    if result.returncode != 0:
        say(f"[AVISO] apt-get no pudo instalar {', '.join(packages)}: {result.stderr.strip()[-300:]}")
    return result.returncode == 0


def cmd_static_busybox_missing() -> bool:
    return images.busybox_binary() is None


def docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def docker_socket_exists() -> bool:
    return Path("/var/run/docker.sock").is_socket()


def start_dockerd(timeout: float = 60) -> bool:
    if docker_answers():
        return True
    dockerd = images.find_tool("dockerd")
    if dockerd is None:
        say("[AVISO] No hay daemon de Docker ni dockerd instalado: sigo sin Docker.")
        return False
    if not system.is_root():
        if docker_socket_exists():
            return False  # a daemon runs, but not for this user: the engine check below says why
        else:
            say(
                "[AVISO] Docker no responde y arrancar dockerd necesita root: sigo sin Docker. Un "
                "administrador puede arrancarlo con «sudo make setup» (o «sudo systemctl start docker»)."
            )
        return False
    say("Arrancando dockerd en segundo plano…")
    log = open(DOCKERD_LOG, "ab")
    subprocess.Popen(
        [dockerd, *runtimes.dockerd_args()],
        stdout=log,
        stderr=log,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
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


def rootless_podman_check() -> None:
    """Without root, Podman maps the container's users onto the user's subordinate ids: without a range
    in /etc/subuid and /etc/subgid it can only map one user, and a Debian image fails to import."""
    if system.is_root() or not shutil.which("podman"):
        return
    user = system.user_name()
    if not (
        images.has_subid_range(Path("/etc/subuid"), user, os.getuid())
        and images.has_subid_range(Path("/etc/subgid"), user, os.getuid())
    ):
        say(
            f"[AVISO] Podman sin root: «{user}» no tiene UID/GID subordinados en /etc/subuid y /etc/subgid; "
            f"un administrador puede dárselos con «{system.subid_command(user)}»."
        )


def step(what: str, fn, *args, **kwargs):
    """Run one set-up step; an unexpected failure is one Spanish line, never a traceback. Its problems
    (PROBLEMS) are filed under `what`."""
    PROBLEMS.step = what
    started = time.monotonic()
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - set-up goes on with what it has
        PROBLEMS.raised(exc)
        print(
            f"{WARNING} {what} falló ({type(exc).__name__}: {str(exc)[-300:]}); sigo con lo demás.",
            flush=True,
        )
        return None
    finally:
        PROBLEMS.step = OUTSIDE_STEPS
        STOPWATCH.add(what, time.monotonic() - started)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Prepara motores, imágenes y sondas del curso.")
    parser.add_argument("--sin-imagenes", action="store_true", help="no preparar imágenes")
    parser.add_argument(
        "--estricto",
        action="store_true",
        help="al final, listar lo que falló por paso y salir con 1 si algo falló",
    )
    args = parser.parse_args(argv)
    if not system.is_root():
        say(
            f"Preparando el curso como «{system.user_name()}», sin root: lo que necesita root lo digo y lo "
            "salto; el resto funciona igual."
        )
    step("La instalación de paquetes", install_missing)
    step("El arranque de dockerd", start_dockerd)
    available = step("La comprobación de los motores", available_engines) or []
    if "podman" in available:
        step("La revisión de Podman sin root", rootless_podman_check)
    if not args.sin_imagenes and available:
        step("La preparación de imágenes", images.ensure, images.ROLE_NAMES, available, log=say)
        if "podman" in available:
            step("La prueba del arreglo de Podman", podman_workaround)
    step("La compilación de sondas", build_probes)
    step("La preparación de LXD (contenedores de sistema, sin red)", lxd_setup.provision, say)
    if kubernetes_build.wanted():
        step("La construcción de Kubernetes (un nodo, sin registro)", kubernetes_build.build, say)
    else:
        say(f"[ -- ] {kubernetes_build.NOT_WANTED}")
    provision_experiments()
    done = STOPWATCH.record()
    say(f"[ OK ] Preparación terminada: {setup_times.sentence(done)}.")
    if args.estricto and PROBLEMS.found:
        say(f"[FALLO] La preparación no quedó completa: {len(PROBLEMS.found)} problema(s), por paso:")
        for line in PROBLEMS.found:
            say(f"  - {line}")
        return 1
    return 0


def available_engines() -> list[str]:
    """The container engines that answer (each one's Spanish reason when not); reaps their orphans."""
    engines.reset_cache()
    available = []
    for name in engines.CONTAINER_ENGINES:
        engine = engines.get_engine(name)
        ok, why = engine.availability()
        if ok:
            available.append(name)
            if engine.rootless:
                info = engine.info()
                say(
                    f"[ OK ] {engine.display}: red {info.get('network_backend')}, almacenamiento "
                    f"{info.get('storage')}."
                )
        else:
            say(f"{WARNING} {engine.display} no está disponible: {why} Sigo con lo demás.")
    engines.reap_orphans(available, log=lambda line: say(f"[ OK ] {line}"))
    return available


def podman_workaround() -> None:
    podman = engines.get_engine("podman")
    probe_image = images.resolve("alpine", podman)
    needed = podman.probe_workaround(probe_image["name"] if probe_image else None)
    say(
        f"[ OK ] {podman.display}: "
        + (
            "este host necesita el arreglo de containers.conf (aplicado)."
            if needed
            else "funciona sin arreglos."
        )
    )


def provision_experiments() -> list[str]:
    """Each registered experiment's own provision(log) step (tools, images, kernels it builds once).
    A failure is reported in one Spanish line and set-up goes on: that experiment will skip what it
    lacks, saying why. Returns the problems of these steps (see Problems), each naming its experiment."""
    before = len(PROBLEMS.found)
    for module in experiments.all_experiments():
        prepare = getattr(module, "provision", None)
        if prepare is None:
            continue
        PROBLEMS.step = f"{module.TITLE} ({module.EXPERIMENT}.provision)"
        started = time.monotonic()
        try:
            prepare(say)
        except Exception as exc:  # noqa: BLE001 - one experiment's set-up must not stop the others
            PROBLEMS.raised(exc)
            print(
                f"{WARNING} {module.TITLE}: la preparación falló ({type(exc).__name__}: {exc}); "
                "ese experimento omitirá lo que le falte.",
                flush=True,
            )
        finally:
            PROBLEMS.step = OUTSIDE_STEPS
            STOPWATCH.add(module.TITLE, time.monotonic() - started)
    return PROBLEMS.found[before:]


if __name__ == "__main__":
    sys.exit(main())
