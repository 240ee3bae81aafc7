"""The HTTP servers of the network experiment: the catalogue, building them, their images, `make setup`.

Sources live in `probes/servidores/` with pinned versions (go.mod + go.sum; Cargo.toml + Cargo.lock):
- `servidor-http` (Go): Go's standard `net/http` (`-impl nethttp`) and the gin framework (`-impl gin`),
  the original benchmark's two implementations;
- `servidor-actix` (Rust): actix-web, the original's fastest native server;
- `servidor-rocket` (Rust): Rocket with its default features, the original's fourth server (its
  appendix ran it natively only).
The Rust servers are built only where a Rust toolchain is present.

`build(log)` compiles them once, statically, into `~/.cache/curso-contenedores/servidores/` (rebuilt
when a source file changes), and `ensure_image(...)` packs each binary alone into an image imported into
each engine. That is the document's own image recipe (its repository's `Dockerfile`: a `golang` builder
running `CGO_ENABLED=0 go build -ldflags="-s -w"`, then `FROM scratch` with the binary alone), done here
without a builder image, so that no daemon contacts an image server: the same flags on the host's Go
(plus `-trimpath`, which only drops file paths from the binary), the binary alone in the image, no base
image, no shell. A container arm then differs from native only by the container.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ... import engines as eng
from ... import images, system
from ...errors import ErrorDelCurso
from ...paths import CACHE_DIR, PROBES_DIR
from . import load

SOURCES_DIR = PROBES_DIR / "servidores"
BUILD_DIR = CACHE_DIR / "servidores"
CARGO_TARGET = BUILD_DIR / "cargo-target"  # cargo's own incremental state (the compiled dependencies)
BODY = "Hola desde el servidor del curso"
CONTAINER_PORT = 8080
GO_MIN = (1, 21)  # go.mod says go 1.22: a Go >= 1.21 fetches that toolchain itself (GOTOOLCHAIN)
GO_FALLBACK_TOOLCHAIN = "v0.0.1-go1.22.12.linux-amd64"  # golang.org/toolchain on the Go module proxy

Log = Callable[[str], None]


@dataclass(frozen=True)
class Server:
    key: str  # what SERVIDORES names
    label: str  # what the reader sees
    binary: str  # file name in BUILD_DIR and in the image
    toolchain: str  # "go" or "rust"
    source: str  # folder under probes/servidores

    def args(self, address: str) -> list[str]:
        if self.binary == "servidor-http":
            return ["-impl", self.key, "-addr", address]
        return [address]

    def env(self, pinned: bool = False) -> dict[str, str]:
        """The server's environment: none as the document ran it (Go's GOMAXPROCS and the Rust servers'
        workers follow the CPUs they see); pinned to one CPU, one Rust worker (the Go runtime follows the
        affinity mask by itself)."""
        return {"SERVIDOR_HILOS": "1"} if pinned and self.toolchain == "rust" else {}

    @property
    def path(self) -> Path:
        return BUILD_DIR / self.binary

    def image_tag(self) -> str:
        return f"curso/{self.binary}:{source_hash(self.source)[:12]}"


SERVERS = {
    "nethttp": Server("nethttp", "Go net/http", "servidor-http", "go", "go"),
    "gin": Server("gin", "Go gin", "servidor-http", "go", "go"),
    "actix": Server("actix", "Rust actix-web", "servidor-actix", "rust", "actix"),
    "rocket": Server("rocket", "Rust Rocket", "servidor-rocket", "rust", "rocket"),
}
SERVER_NAMES = tuple(SERVERS)


def source_hash(folder: str) -> str:
    """Hash of a server's source files (what decides whether the cached binary is current)."""
    digest = hashlib.sha256()
    root = SOURCES_DIR / folder
    for path in sorted(root.rglob("*")):
        if path.is_file() and "target" not in path.relative_to(root).parts:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _stamp(server: Server) -> Path:
    return BUILD_DIR / f"{server.binary}.fuente"


def is_built(server: Server) -> bool:
    stamp = _stamp(server)
    return (
        server.path.is_file() and stamp.is_file() and stamp.read_text().strip() == source_hash(server.source)
    )


def availability(key: str) -> tuple[bool, str | None]:
    """(True, None) or (False, Spanish reason) for one server."""
    server = SERVERS[key]
    if is_built(server):
        return True, None
    tool = "Go" if server.toolchain == "go" else "Rust (cargo)"
    if toolchain(server) is None:
        return False, (
            f"{server.label} no está disponible: no hay {tool} en esta máquina para compilarlo "
            "(«make setup» lo compila donde lo hay)."
        )
    return False, f"{server.label} no está compilado todavía: ejecuta «make setup»."


# ------------------------------------------------------------------ toolchains
def _version_tuple(text: str) -> tuple[int, ...] | None:
    m = re.search(r"go(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def find_go() -> str | None:
    for candidate in (shutil.which("go"), "/usr/local/go/bin/go", str(Path.home() / "go" / "bin" / "go")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def find_cargo() -> str | None:
    for candidate in (shutil.which("cargo"), str(Path.home() / ".cargo" / "bin" / "cargo")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def toolchain(server: Server) -> str | None:
    """The Go or cargo that builds this server here, or None (make setup does not install them)."""
    return find_go() if server.toolchain == "go" else find_cargo()


def _go_for_module(go: str, env: dict, log: Log) -> str | None:
    """A `go` able to build a go.mod that says 1.22. Go >= 1.21 fetches the toolchain itself; an older
    Go (Debian 12's 1.19) downloads it as a module from the Go module proxy."""
    version = _version_tuple(system.capture([go, "version"], env=env).stdout)
    if version is None:
        return None
    if version >= GO_MIN:
        return go
    log(
        f"    Go {version[0]}.{version[1]} es anterior a 1.21: descargo la cadena de Go 1.22 del proxy de módulos…"
    )
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "go.mod").write_text("module descarga\n")
        result = system.capture(
            [go, "mod", "download", "-json", f"golang.org/toolchain@{GO_FALLBACK_TOOLCHAIN}"],
            cwd=tmp,
            env=env,
            timeout=600,
        )
    m = re.search(r'"Dir":\s*"([^"]+)"', result.stdout)
    if result.returncode != 0 or not m:
        return None
    candidate = Path(m.group(1)) / "bin" / "go"
    if candidate.is_file():
        candidate.chmod(0o755)
        return str(candidate)
    return None


def _install(built: Path, server: Server) -> None:
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    tmp = server.path.with_suffix(".nuevo")
    shutil.copy2(built, tmp)
    tmp.chmod(0o755)
    os.replace(tmp, server.path)
    _stamp(server).write_text(source_hash(server.source) + "\n")


def _build_go(server: Server, log: Log) -> tuple[bool, str]:
    go = find_go()
    if go is None:
        return False, "no hay Go en esta máquina"
    env = dict(os.environ, CGO_ENABLED="0", GOFLAGS="-mod=readonly", GOTOOLCHAIN="auto")
    go = _go_for_module(go, env, log)
    if go is None:
        return False, "no encontré un Go 1.21 o más nuevo, ni pude descargarlo"
    out = BUILD_DIR / f"{server.binary}.compilando"
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    result = system.capture(
        [go, "build", "-trimpath", "-ldflags", "-s -w", "-o", str(out), "."],
        cwd=SOURCES_DIR / server.source,
        env=env,
        timeout=900,
    )
    if result.returncode != 0:
        return False, f"go build falló: {result.stderr.strip()[-300:]}"
    _install(out, server)
    out.unlink(missing_ok=True)
    return True, ""


def _build_rust(server: Server, log: Log) -> tuple[bool, str]:
    cargo = find_cargo()
    if cargo is None:
        return False, "no hay Rust (cargo) en esta máquina"
    env = dict(os.environ, RUSTFLAGS="-C target-feature=+crt-static")
    env["PATH"] = f"{Path(cargo).parent}:{env.get('PATH', '')}"
    target_dir = CARGO_TARGET
    triple = "x86_64-unknown-linux-gnu" if os.uname().machine == "x86_64" else None
    argv = [cargo, "build", "--release", "--locked", "--target-dir", str(target_dir)]
    if triple:
        argv += ["--target", triple]  # with an explicit target, crt-static does not reach build scripts
    result = system.capture(argv, cwd=SOURCES_DIR / server.source, env=env, timeout=1200)
    if result.returncode != 0:
        return False, f"cargo build falló: {result.stderr.strip()[-300:]}"
    built = target_dir / (triple or "") / "release" / server.binary
    _install(built, server)
    return True, ""


def build(log: Log = print, keys: Sequence[str] = SERVER_NAMES) -> dict[str, tuple[bool, str]]:
    """Build (once, cached) every server binary it can; never raises for a missing toolchain."""
    done: dict[str, tuple[bool, str]] = {}
    for key in keys:
        server = SERVERS[key]
        if server.binary in done:
            done[key] = done[server.binary]
            continue
        if is_built(server):
            outcome = (True, "")
        else:
            log(
                f"    compilando {server.binary} ({'Go' if server.toolchain == 'go' else 'Rust'}; "
                "unos minutos la primera vez)…"
            )
            builder = _build_go if server.toolchain == "go" else _build_rust
            try:
                outcome = builder(server, log)
            except (OSError, subprocess.TimeoutExpired) as exc:
                outcome = (False, f"{type(exc).__name__}: {exc}")
        done[server.binary] = done[key] = outcome
    return {key: done[key] for key in keys}


# ------------------------------------------------------------------ images: the binary alone
def _image_in(engine: eng.Engine, key: str) -> dict | None:
    """The image of this server the engine already has, or None."""
    found = images.local_image(engine, SERVERS[key].image_tag())
    return {"server": key, **found} if found else None


def _import_binary(engine: eng.Engine, server: Server, log: Log) -> None:
    """Import an image holding the binary alone, owned by root (no base image, no shell)."""
    tag = server.image_tag()
    with tempfile.TemporaryDirectory(prefix="curso-servidor-") as tmp:
        tar_path = Path(tmp) / "imagen.tar"
        with tarfile.open(tar_path, "w") as tar:
            info = tar.gettarinfo(str(server.path), arcname=server.binary)
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mode = 0o755
            with open(server.path, "rb") as fh:
                tar.addfile(info, fh)
        log(f"    importando {tag} en {engine.display} (solo el binario)…")
        images.import_tar(engine, tar_path, tag, [f'ENTRYPOINT ["/{server.binary}"]'])


def ensure_image(engine_name: str, key: str, log: Log = print) -> dict | None:
    """The image holding this server's binary alone, imported into the engine if missing; None when the
    binary is not built."""
    server = SERVERS[key]
    engine = eng.get_engine(engine_name)
    if not is_built(server):
        return None
    found = _image_in(engine, key)
    if found is None:
        _import_binary(engine, server, log)
        found = _image_in(engine, key)
    return found


# ------------------------------------------------------------------ make setup
def provision(log: Log = print) -> None:
    """Build the servers (static, cached) and pack each into a binary-only image in every engine."""
    built = build(log)
    for key, (ok, why) in built.items():
        server = SERVERS[key]
        if ok:
            log(f"[ OK ] servidor {server.label}: {server.path}")
        else:
            # without its toolchain (set-up does not install Go or Rust) it is absent, not failed
            tag = "[AVISO]" if toolchain(server) else "[FALTA]"
            log(f"{tag} servidor {server.label} no disponible: {why}. El cuaderno 06 lo omite.")
    for engine_name in eng.CONTAINER_ENGINES:
        if not eng.get_engine(engine_name).available:
            continue
        for key in SERVER_NAMES:
            if not built.get(key, (False, ""))[0]:
                continue
            try:
                ensure_image(engine_name, key, log)
            except ErrorDelCurso as exc:
                log(f"[AVISO] {exc}")
    ok, why = load.available()
    if not ok:
        log(f"[AVISO] {why}")
