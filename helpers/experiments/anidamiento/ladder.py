"""How a level-2 container is opened: the ladder of attempts without --privileged (Podman in Podman,
narrowest relaxation first, each error kept and explained in Spanish), and --privileged, or what
replaces it where the host itself cannot grant every capability."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ... import engines as eng
from ...engines.nested import Chain, clip, entry, short_error
from ...errors import ComandoFallido
from ..runner import Log
from .build import busybox_tar
from .chains import load_in_chain, nested_options, startup_argv

# Capabilities by number (linux/capability.h), to find the ones the host itself lacks.
CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "DAC_READ_SEARCH",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "SETPCAP",
    "LINUX_IMMUTABLE",
    "NET_BIND_SERVICE",
    "NET_BROADCAST",
    "NET_ADMIN",
    "NET_RAW",
    "IPC_LOCK",
    "IPC_OWNER",
    "SYS_MODULE",
    "SYS_RAWIO",
    "SYS_CHROOT",
    "SYS_PTRACE",
    "SYS_PACCT",
    "SYS_ADMIN",
    "SYS_BOOT",
    "SYS_NICE",
    "SYS_RESOURCE",
    "SYS_TIME",
    "SYS_TTY_CONFIG",
    "MKNOD",
    "LEASE",
    "AUDIT_WRITE",
    "AUDIT_CONTROL",
    "SETFCAP",
    "MAC_OVERRIDE",
    "MAC_ADMIN",
    "SYSLOG",
    "WAKE_ALARM",
    "BLOCK_SUSPEND",
    "AUDIT_READ",
    "PERFMON",
    "BPF",
    "CHECKPOINT_RESTORE",
)


def missing_capabilities(status_text: str | None = None) -> list[str]:
    """Capabilities absent from this process's bounding set (/proc/self/status, CapBnd)."""
    if status_text is None:
        try:
            status_text = Path("/proc/self/status").read_text()
        except OSError:
            return []
    found = re.search(r"^CapBnd:\s*([0-9a-fA-F]+)", status_text, re.MULTILINE)
    if not found:
        return []
    mask = int(found.group(1), 16)
    return [name for bit, name in enumerate(CAPABILITIES) if not mask >> bit & 1]


@dataclass(frozen=True)
class Attempt:
    key: str
    label: str  # Spanish, what was added
    security_opt: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()


# The narrowest relaxations first; the first that works becomes the measured arm. The image store of
# the inner engine is a host directory in every attempt, so storage is never what fails.
LADDER = (
    Attempt("por_defecto", "las opciones por defecto"),
    Attempt(
        "seccomp",
        "seccomp=unconfined (sin filtro de llamadas al sistema)",
        security_opt=("seccomp=unconfined",),
    ),
    Attempt("unmask", "unmask=ALL (/proc y /sys sin rutas tapadas)", security_opt=("unmask=ALL",)),
    Attempt(
        "seccomp_unmask", "seccomp=unconfined + unmask=ALL", security_opt=("seccomp=unconfined", "unmask=ALL")
    ),
)

# Known errors of a nested engine and what they mean (pattern, Spanish explanation).
ERROR_EXPLANATIONS = (
    (
        r"unable to apply caps",
        "--privileged pide todas las capacidades del kernel, y el host mismo no las tiene todas (aquí falta "
        "CAP_SYS_RESOURCE, la de subir límites de recursos): runc no puede dar lo que no tiene.",
    ),
    (
        r"sethostname",
        "El filtro seccomp por defecto del contenedor exterior bloquea sethostname (y otras llamadas al sistema "
        "de administración) a un proceso sin CAP_SYS_ADMIN: runc, dentro, no puede dar nombre al contenedor "
        "interior.",
    ),
    (
        r"mount proc|mounting \"proc\"",
        "Es el error que registró el experimento 9 del repositorio del capítulo original (04_benchmarks.md). "
        "runc, dentro, intenta montar un /proc nuevo para el contenedor interior y el kernel se niega: el /proc "
        "del contenedor exterior tiene rutas tapadas (por ejemplo /proc/kcore o /proc/sys) y el kernel no deja "
        "montar un proc que mostraría más de lo que ya se ve.",
    ),
    (
        r"fuse: device not found|fuse-overlayfs: cannot mount",
        "El Podman de dentro no puede montar su almacén de imágenes. Sin CAP_SYS_ADMIN no puede usar el overlay "
        "del kernel directamente y recurre a fuse-overlayfs, que necesita el dispositivo /dev/fuse, y el "
        "contenedor exterior no lo tiene.",
    ),
    (
        r"read-only file system",
        "Los cgroups del contenedor exterior están montados solo lectura: el motor de dentro no puede crear el "
        "cgroup del contenedor interior.",
    ),
    (
        r"newuidmap|uid_map",
        "No se pudo crear el espacio de nombres de usuario: newuidmap no pudo escribir el mapa de UID.",
    ),
    (
        r"Cannot connect to the Docker daemon|daemon de Docker de dentro",
        "El daemon de Docker de dentro no respondió.",
    ),
)


def explain(error: str) -> str:
    """The Spanish explanation of a nested engine's error (the first known pattern found)."""
    for pattern, text in ERROR_EXPLANATIONS:
        if re.search(pattern, error or "", re.IGNORECASE):
            return text
    return "Error no reconocido: lee el mensaje original."


# ---------------------------------------------------------------- without --privileged
def _inner_uid_map(chain: Chain, busybox: str, run_id: str) -> str:
    """Without CAP_SYS_ADMIN the inner Podman puts its containers in a user namespace: its UID map."""
    argv = chain.cli.run_argv(
        busybox, ["cat", "/proc/self/uid_map"], run_id=run_id, opts=eng.RunOptions(network="none")
    )
    result = chain.cli.call(chain.wrap(argv), timeout=120)
    return " | ".join(" ".join(ln.split()) for ln in result.stdout.splitlines())


def _climb(
    ctx, step: Attempt, busybox: str, nested_image: str, workdir: Path, *, again: int = 0
) -> tuple[dict, Path]:
    """One step of the ladder: an outer Podman with this step's options, busybox loaded inside, and one
    inner `run`. Returns what happened (opciones, ok, error, explicacion, ...) and the store used; the
    outer container stays running when the step worked on the first climb (again=0), and is removed when
    it did not or on a repeated climb (again ≥ 1, its own container and store)."""
    cli = eng.get_engine("podman")
    mode = {"security_opt": list(step.security_opt), "devices": list(step.devices)}
    tag = f"{step.key}-{again}" if again else step.key
    name = ctx.container_name("intento", tag)
    store = workdir / f"almacen-intento-{tag}"
    store.mkdir(parents=True, exist_ok=True)
    record = {
        "clave": step.key,
        "opciones": step.label,
        "security_opt": list(step.security_opt),
        "devices": list(step.devices),
        "ok": False,
        "error": "",
        "explicacion": "",
    }
    try:
        opts = nested_options("podman", mode=mode, store=str(store), inner=False)
        cli.launch(nested_image, entry("podman"), run_id=ctx.run_id, name=name, opts=opts)
        chain = Chain("podman", outer=[name])
        load_in_chain(chain, busybox_tar("podman"))
        result = cli.call(chain.wrap(startup_argv("podman", busybox, ctx.run_id)), timeout=120)
        record["ok"] = result.returncode == 0 and "ok" in result.stdout
        if record["ok"]:
            record["mapa_uid_interior"] = _inner_uid_map(chain, busybox, ctx.run_id)
        else:
            record["error"] = short_error(result.stderr or result.stdout)
    except ComandoFallido as exc:
        record["error"] = short_error(str(exc))
    finally:
        if again or not record["ok"]:
            cli.remove([name])
    if not record["ok"]:
        record["explicacion"] = explain(record["error"])
    return record, store


def climb_again(
    ctx, busybox: str, nested_image: str, workdir: Path, log: Log, times: int
) -> list[list[dict]]:
    """The ladder climbed `times` more times, each with fresh containers removed at once, so that «does
    nesting need --privileged?» is observed verdict.MIN_OBSERVED times (the first climb is
    try_unprivileged's). Each climb stops at the first step that works, like the first; returns the
    attempts of each climb (clave, ok, error)."""
    climbs = []
    for again in range(1, times + 1):
        attempts = []
        for step in LADDER:
            record, _ = _climb(ctx, step, busybox, nested_image, workdir, again=again)
            attempts.append({key: record[key] for key in ("clave", "ok", "error")})
            if record["ok"]:
                break
        log(again_line(again, attempts))
        climbs.append(attempts)
    return climbs


def again_line(again: int, attempts: list[dict]) -> str:
    """The progress line of one more climb: the step that worked, in the words of the «paso a paso» table
    («seccomp=unconfined + unmask=ALL»), never its key."""
    labels = {step.key: step.label for step in LADDER}
    worked = next((labels.get(a["clave"], a["clave"]) for a in attempts if a["ok"]), None)
    return f"  La escalera sin --privileged, otra vez ({again + 1}.ª): {worked or 'ningún paso funciona'}"


def try_unprivileged(
    ctx, busybox: str, nested_image: str, workdir: Path, log: Log
) -> tuple[list[dict], dict | None, tuple[str, Path] | None]:
    """Climb LADDER (Podman in Podman without --privileged) until an inner `run` works. Returns every
    attempt (opciones, ok, error, explicacion), the mode that worked (or None) and that attempt's
    container (name, store), left running for the measured arm."""
    attempts: list[dict] = []
    for step in LADDER:
        record, store = _climb(ctx, step, busybox, nested_image, workdir)
        attempts.append(record)
        said = "funciona" if record["ok"] else f"falla: {clip(record['error'], 160)}"
        log(f"  Podman dentro de Podman sin --privileged, con {step.label}: {said}")
        if record["ok"]:
            mode = {"security_opt": list(step.security_opt), "devices": list(step.devices)}
            return attempts, mode, (ctx.container_name("intento", step.key), store)
    return attempts, None, None


# ---------------------------------------------------------------- --privileged (or nearly)
def privileged_mode(ctx, engine_name: str, nested_image: str, log: Log) -> tuple[dict, dict]:
    """--privileged, if this host can grant it; else (Docker here) every capability the host has, with
    seccomp, /proc and /sys unconfined. Returns (mode, what to record in meta.json)."""
    cli = eng.get_engine(engine_name)
    name = ctx.container_name("prueba-privilegiado", engine_name)
    opts = eng.RunOptions(network="none", privileged=True)
    result = cli.call(
        cli.run_argv(nested_image, ["true"], run_id=ctx.run_id, name=name, remove=True, opts=opts),
        timeout=120,
    )
    cli.remove([name])
    if result.returncode == 0:
        return {"privileged": True}, {"modo": "--privileged"}
    error = short_error(result.stderr)
    missing = missing_capabilities()
    unconfined = "systempaths=unconfined" if engine_name == "docker" else "unmask=ALL"
    mode = {
        "cap_add": ["ALL"],
        "extra": [arg for cap in missing for arg in ("--cap-drop", cap)],
        "security_opt": ["seccomp=unconfined", unconfined],
    }
    note = {
        "modo": "casi --privileged",
        "error_de_privileged": error,
        "explicacion": explain(error),
        "capacidades_que_faltan_en_el_host": missing,
        "opciones": [
            "--cap-add ALL",
            *[f"--cap-drop {c}" for c in missing],
            "--security-opt seccomp=unconfined",
            f"--security-opt {unconfined}",
        ],
    }
    log(
        f"  {cli.display}: --privileged falla aquí ({clip(error, 120)}). Uso todas las capacidades que el host "
        f"tiene (menos {', '.join(missing) or 'ninguna'}), sin seccomp y con /proc y /sys sin tapar."
    )
    return mode, note
