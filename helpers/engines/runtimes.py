"""OCI runtimes beyond the engines' default: gVisor's `runsc` (a kernel in user space).

`runsc` is built once by `make setup` (the system-call experiment's provision step, `build_runsc`) into
CACHE_DIR/bin/runsc, from gVisor's Go module at a pinned version:
`go install gvisor.dev/gvisor/runsc@<RUNSC_VERSION>` with CGO_ENABLED=0. gVisor's go.mod asks for a recent
Go; when the host's Go is older (Debian 12's golang-go is 1.19), the toolchain comes from the Go module
proxy: through GOTOOLCHAIN for a Go >= 1.21, or fetched as the proxy's `golang.org/toolchain` module
otherwise (or when there is no Go at all).

Docker uses runsc only when its daemon lists it (a daemon the course starts is started with
`--add-runtime runsc=<that path>`); a system daemon's configuration is never edited. Podman takes the path
with `--runtime`.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import platform
import re
import shutil
import subprocess
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

from .. import system
from ..paths import CACHE_DIR

BIN_DIR = CACHE_DIR / "bin"
RUNSC = BIN_DIR / "runsc"
RUNSC_STAMP = BIN_DIR / "runsc.version"  # the module version the cached binary was built from
RUNSC_MODULE = "gvisor.dev/gvisor/runsc"
RUNSC_WHAT = "gVisor (runsc) en este curso"
# gVisor publishes its Go-buildable tree as pseudo-versions of the `go` branch; pinned so every machine
# of a class builds the same runsc. Its go.mod says `go 1.26.3`.
RUNSC_VERSION = "v0.0.0-20260905035102-160fafc42237"
GO_REQUIRED = (1, 26, 3)
TOOLCHAIN_DIR = CACHE_DIR / "go-toolchain"
BUILD_TIMEOUT = 1200  # seconds; a loaded two-core machine takes several minutes

Log = Callable[[str], None]


def runsc_path() -> Path | None:
    """The course's runsc, or one on PATH; None if there is none."""
    if RUNSC.is_file() and os.access(RUNSC, os.X_OK):
        return RUNSC
    found = shutil.which("runsc")
    return Path(found) if found else None


def runsc_availability() -> tuple[bool, str | None]:
    reason = system.needs_root_reason(RUNSC_WHAT)  # first: without root it is neither built nor used
    if reason:
        return False, reason
    if runsc_path() is None:
        return False, (
            "gVisor (runsc) no está instalado: «make setup» lo compila desde su módulo de Go "
            "si hay un Go reciente."
        )
    return True, None


def dockerd_args() -> list[str]:
    """Flags for a dockerd the course starts itself: register runsc at its fixed path (the binary may
    appear later; the daemon only looks for it when a container uses it)."""
    return ["--add-runtime", f"runsc={RUNSC}"]


# ---------------------------------------------------------------- what meta.json records
@functools.lru_cache(maxsize=1)
def runsc_info() -> dict:
    """Path, version, the module version it was built from and its default platform (systrap, ptrace,
    kvm). Never raises: what cannot be read is None."""
    path = runsc_path()
    info = {
        "runtime": "runsc",
        "path": str(path) if path else None,
        "version": None,
        "module_version": None,
        "platform": None,
    }
    if path is None:
        return info
    if path == RUNSC and RUNSC_STAMP.exists():
        info["module_version"] = RUNSC_STAMP.read_text().strip() or None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30).stdout
        first = out.strip().splitlines()[0] if out.strip() else ""
        version = first.removeprefix("runsc version ").strip()
        info["version"] = None if version in ("", "VERSION_MISSING") else version
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run([str(path), "flags"], capture_output=True, text=True, timeout=30)
        info["platform"] = parse_default_platform(out.stdout + out.stderr)
    return info


def parse_default_platform(flags_text: str) -> str | None:
    """The default of `-platform` in `runsc flags` output (e.g. "systrap")."""
    match = re.search(r"-platform string\s*\n\s*[^\n]*?\(default \"([^\"]+)\"\)", flags_text)
    return match.group(1) if match else None


# ---------------------------------------------------------------- building runsc
def go_version(go: str | Path) -> tuple[int, ...] | None:
    """(major, minor, patch) of a Go binary, or None if it does not answer."""
    try:
        out = subprocess.run([str(go), "version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_go_version(out)


def parse_go_version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"\bgo(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not match:
        return None
    return tuple(int(part or 0) for part in match.groups())


def _go_candidates() -> list[Path]:
    found = [shutil.which("go"), "/usr/local/go/bin/go", "/usr/lib/go/bin/go"]
    found += sorted(str(p) for p in TOOLCHAIN_DIR.glob("*/bin/go"))
    out: list[Path] = []
    for item in found:
        if item and Path(item).is_file() and os.access(item, os.X_OK) and Path(item).resolve() not in out:
            out.append(Path(item).resolve())
    return out


def _goarch() -> str | None:
    return {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine())


def _proxy() -> str:
    for item in re.split(r"[,|]", os.environ.get("GOPROXY", "")):
        if item.startswith("http"):
            return item.rstrip("/")
    return "https://proxy.golang.org"


def fetch_toolchain(log: Log) -> Path | None:
    """Download Go GO_REQUIRED from the Go module proxy (module golang.org/toolchain) into TOOLCHAIN_DIR;
    the path of its `go`, or None (with a Spanish line) if that is not possible."""
    arch = _goarch()
    if arch is None or not platform.system() == "Linux":
        log(f"[AVISO] No hay toolchain de Go en el proxy para {platform.system()}/{platform.machine()}.")
        return None
    name = "go" + ".".join(map(str, GO_REQUIRED))
    version = f"v0.0.1-{name}.linux-{arch}"
    target = TOOLCHAIN_DIR / name
    if (target / "bin" / "go").exists():
        return target / "bin" / "go"
    url = f"{_proxy()}/golang.org/toolchain/@v/{version}.zip"
    log(f"Descargando Go {name[2:]} desde el proxy de módulos de Go (unos 70 MB)…")
    TOOLCHAIN_DIR.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".toolchain-", dir=TOOLCHAIN_DIR))
    try:
        archive = tmp / "toolchain.zip"
        with urllib.request.urlopen(url, timeout=120) as response, open(archive, "wb") as out:
            shutil.copyfileobj(response, out)
        prefix = f"golang.org/toolchain@{version}/"
        unpacked = tmp / "go"
        with zipfile.ZipFile(archive) as zf:
            for member in zf.infolist():
                if not member.filename.startswith(prefix) or member.is_dir():
                    continue
                rel = member.filename[len(prefix) :]
                dest = unpacked / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, open(dest, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                if rel.startswith(("bin/", "pkg/tool/")):
                    dest.chmod(0o755)
        os.replace(unpacked, target)
    except (OSError, zipfile.BadZipFile) as exc:
        log(f"[AVISO] No pude descargar Go desde {url}: {exc}")
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target / "bin" / "go"


def choose_go(log: Log) -> tuple[Path, dict] | None:
    """A Go able to build runsc and the environment to use it with; None if there is none."""
    best = None
    for go in _go_candidates():
        version = go_version(go)
        if version and (best is None or version > best[1]):
            best = (go, version)
    if best and best[1] >= GO_REQUIRED:
        return best[0], {"GOTOOLCHAIN": "local"}
    if best and best[1] >= (1, 21):
        # This Go knows GOTOOLCHAIN: it fetches the newer toolchain from the module proxy by itself.
        return best[0], {"GOTOOLCHAIN": "go" + ".".join(map(str, GO_REQUIRED))}
    if best:
        log(f"El Go de este sistema ({'.'.join(map(str, best[1]))}) es demasiado viejo para gVisor.")
    go = fetch_toolchain(log)
    return (go, {"GOTOOLCHAIN": "local"}) if go else None


def runsc_current() -> bool:
    """True if the cached runsc was built from the pinned version."""
    return RUNSC.is_file() and RUNSC_STAMP.exists() and RUNSC_STAMP.read_text().strip() == RUNSC_VERSION


@contextlib.contextmanager
def _build_lock():
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    with open(BIN_DIR / ".runsc.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_runsc(log: Log = print, *, force: bool = False) -> tuple[bool, str]:
    """Build runsc into CACHE_DIR/bin once (cached by version). (ok, Spanish message); never raises."""
    if platform.system() != "Linux":
        return False, "gVisor solo funciona en Linux."
    reason = system.needs_root_reason(RUNSC_WHAT)
    if reason:  # runsc_availability() refuses it without root: building it would only cost minutes
        return False, f"{reason} No lo compilo."
    with _build_lock():
        if runsc_current() and not force:
            return True, f"gVisor (runsc) ya está compilado en {RUNSC}."
        chosen = choose_go(log)
        if chosen is None:
            return False, (
                "no hay un Go capaz de compilar gVisor ni se pudo descargar uno del proxy de "
                "módulos de Go; se omitirán los brazos con gVisor."
            )
        go, extra_env = chosen
        log(f"Compilando gVisor (runsc {RUNSC_VERSION}) con {go}: tarda de 1 a 5 minutos, una sola vez…")
        tmp = Path(tempfile.mkdtemp(prefix=".runsc-", dir=BIN_DIR))
        env = dict(os.environ, CGO_ENABLED="0", GOBIN=str(tmp), GOFLAGS="-buildvcs=false", **extra_env)
        env.setdefault("GOPATH", str(Path.home() / "go"))
        try:
            result = subprocess.run(
                [str(go), "install", f"{RUNSC_MODULE}@{RUNSC_VERSION}"],
                env=env,
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT,
            )
            built = tmp / "runsc"
            if result.returncode != 0 or not built.exists():
                tail = (result.stderr or result.stdout).strip()[-400:] or "(sin mensaje)"
                return False, f"la compilación de gVisor falló: {tail}"
            os.replace(built, RUNSC)
            RUNSC_STAMP.write_text(RUNSC_VERSION + "\n")
        except subprocess.TimeoutExpired:
            return False, f"la compilación de gVisor no terminó en {BUILD_TIMEOUT // 60} minutos."
        except OSError as exc:
            return False, f"no pude compilar gVisor: {exc}"
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        runsc_info.cache_clear()
        return True, f"gVisor (runsc) compilado en {RUNSC}."
