"""Building the Kubernetes parts once, offline, for `make setup`: the official v1.34.2 sources from the Go
module proxy built into the course's cache (binaries only, stripped, the Go caches removed afterwards),
Debian's etcd unpacked beside them, and a tiny static "pause" image for the sandboxes. A stamp makes a
second set-up a no-op."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from ..paths import CACHE_DIR

VERSION = "v1.34.2"
STAGING_VERSION = "v0.34.2"
CACHE = CACHE_DIR / "kubernetes" / VERSION
BIN_DIR = CACHE / "bin"
ETCD_DIR = CACHE / "etcd"
PAUSE_TAR = CACHE / "pause.tar"
PAUSE_IMAGE = "curso.local/pause:1"
STAMP = CACHE / "construido.json"
COMPONENTS = (
    "kubelet",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kube-proxy",
    "kubectl",
)
# What the cluster needs from Debian besides the build (etcd is downloaded and unpacked, not installed).
DEBIAN_PACKAGES = ("containerd", "containernetworking-plugins", "runc", "iptables", "openssl")
GO_CANDIDATES = ("/usr/local/go/bin/go", "/usr/lib/go/bin/go")
# The pause process: waits for a signal and exits; PID 1 of every sandbox.
PAUSE_SOURCE = """package main

import (
\t"os"
\t"os/signal"
\t"syscall"
)

func main() {
\tc := make(chan os.Signal, 1)
\tsignal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
\t<-c
}
"""


def go_binary() -> str | None:
    for candidate in (shutil.which("go"), *GO_CANDIDATES):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def etcd_binary() -> Path:
    return ETCD_DIR / "usr" / "bin" / "etcd"


# Built by default (notebooks 04 and 06 run their Kubernetes arms on it): 15-40 min and 485 MiB once, as
# root with Go. KUBERNETES=0 with the course's set-up ($CURSO_KUBERNETES=0) leaves it out.
OPT_OUT_ENV = "CURSO_KUBERNETES"
NOT_WANTED = (
    "Kubernetes no se construye: lo pediste con KUBERNETES=0 (CURSO_KUBERNETES=0). Los brazos de "
    "Kubernetes de 04 y 06 se omiten. Para construirlo (de 15 a 40 min, 485 MiB): make setup."
)


def wanted() -> bool:
    """Whether set-up builds Kubernetes: unless left out ($CURSO_KUBERNETES=0); already built, it then
    only says «ya construido»."""
    return os.environ.get(OPT_OUT_ENV) != "0" or built()


def built() -> bool:
    """Whether a previous set-up left every part in the cache (the stamp is written last)."""
    return (
        STAMP.is_file()
        and all((BIN_DIR / name).is_file() for name in COMPONENTS)
        and etcd_binary().is_file()
        and PAUSE_TAR.is_file()
    )


def missing_part() -> str | None:
    """The first missing part, in Spanish, or None when everything is in the cache."""
    for name in COMPONENTS:
        if not (BIN_DIR / name).is_file():
            return f"falta {name} en {BIN_DIR}"
    if not etcd_binary().is_file():
        return f"falta etcd en {ETCD_DIR}"
    if not PAUSE_TAR.is_file():
        return f"falta la imagen «pause» en {PAUSE_TAR}"
    return None


def _make_writable(root: Path) -> None:
    """Go's module cache is read-only: open it up so it can be removed."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            try:
                if not path.is_symlink():
                    path.chmod(path.stat().st_mode | stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
            except OSError:
                pass
    try:
        root.chmod(0o755)
    except OSError:
        pass


def remove_tree(root: Path) -> None:
    if root.exists():
        _make_writable(root)
        shutil.rmtree(root, ignore_errors=True)


def _go_env(go: str, work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GOCACHE=str(work / "gocache"),
        GOMODCACHE=str(work / "gomod"),
        GOPATH=str(work / "gopath"),
        GOFLAGS="-mod=mod",
        CGO_ENABLED="0",
        GOWORK="off",
        GOTELEMETRY="off",
    )
    env["PATH"] = f"{Path(go).parent}:{env.get('PATH', '')}"
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 3600) -> str:
    result = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} falló: {(result.stderr or result.stdout).strip()[-600:]}")
    return result.stdout


def rewrite_go_mod(text: str) -> str:
    """Drop the `replace` lines that point every k8s.io/<x> at ./staging and require the published
    staging modules (v0.34.2) instead of v0.0.0."""
    staged = set(re.findall(r"(k8s\.io/[\w./-]+) => \./staging/", text))
    text = re.sub(r"(?m)^\s*(replace\s+)?k8s\.io/\S+ => \./staging/\S+\n", "", text)
    text = re.sub(r"(?m)^replace \(\n\)\n", "", text)

    def published(match: re.Match) -> str:
        module = match.group(1)
        return f"{module} {STAGING_VERSION}" if module in staged else match.group(0)

    return re.sub(r"(k8s\.io/[\w./-]+) v0\.0\.0(?=\s*$)", published, text, flags=re.M)


def ldflags() -> str:
    base = "k8s.io/component-base/version"
    return " ".join(
        [
            "-s",
            "-w",
            f"-X {base}.gitVersion={VERSION}",
            f"-X {base}.gitMajor=1",
            f"-X {base}.gitMinor=34",
            f"-X {base}.gitTreeState=clean",
            f"-X k8s.io/client-go/pkg/version.gitVersion={VERSION}",
            "-X k8s.io/client-go/pkg/version.gitMajor=1",
            "-X k8s.io/client-go/pkg/version.gitMinor=34",
        ]
    )


def build_binaries(go: str, work: Path) -> None:
    env = _go_env(go, work)
    info = json.loads(_run([go, "mod", "download", "-json", f"k8s.io/kubernetes@{VERSION}"], env, cwd=work))
    source = work / "src"
    shutil.copytree(info["Dir"], source)
    _make_writable(source)
    for name in ("go.work", "go.work.sum"):
        (source / name).unlink(missing_ok=True)
    go_mod = source / "go.mod"
    go_mod.write_text(rewrite_go_mod(go_mod.read_text()))
    out = work / "out"
    out.mkdir()
    _run(
        [go, "build", "-trimpath", "-ldflags", ldflags(), "-o", str(out) + "/"]
        + [f"./cmd/{name}" for name in COMPONENTS],
        env,
        cwd=source,
    )
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    for name in COMPONENTS:
        shutil.copy2(out / name, BIN_DIR / name)


def unpack_etcd(work: Path) -> None:
    """Debian's etcd-server, downloaded and unpacked (not installed: no service comes with it)."""
    downloads = work / "deb"
    downloads.mkdir(exist_ok=True)
    result = subprocess.run(
        ["apt-get", "download", "etcd-server"], cwd=downloads, capture_output=True, text=True, timeout=600
    )
    debs = sorted(downloads.glob("etcd-server_*.deb"))
    if result.returncode != 0 or not debs:
        raise RuntimeError(f"apt-get download etcd-server falló: {result.stderr.strip()[-300:]}")
    shutil.rmtree(ETCD_DIR, ignore_errors=True)
    ETCD_DIR.mkdir(parents=True)
    subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(ETCD_DIR)], check=True, timeout=300)
    for extra in ("share", "lib"):
        shutil.rmtree(ETCD_DIR / "usr" / extra, ignore_errors=True)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    info.mtime = 0
    tar.addfile(info, io.BytesIO(data))


def build_pause(go: str, work: Path) -> None:
    """A static pause binary as a one-layer docker-archive (what `ctr images import` reads)."""
    pause_dir = work / "pause"
    pause_dir.mkdir()
    (pause_dir / "main.go").write_text(PAUSE_SOURCE)
    (pause_dir / "go.mod").write_text("module pause\n\ngo 1.21\n")
    env = _go_env(go, work)
    env["GOFLAGS"] = ""
    _run([go, "build", "-trimpath", "-ldflags", "-s -w", "-o", "pause", "."], env, cwd=pause_dir)
    layer_buf = io.BytesIO()
    with tarfile.open(fileobj=layer_buf, mode="w") as layer:
        _add_bytes(layer, "pause", (pause_dir / "pause").read_bytes(), 0o755)
    layer_bytes = layer_buf.getvalue()
    diff_id = "sha256:" + hashlib.sha256(layer_bytes).hexdigest()
    config = json.dumps(
        {
            "architecture": _go_arch(go, env),
            "os": "linux",
            "config": {"Entrypoint": ["/pause"], "User": "65535:65535"},
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        }
    ).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = json.dumps(
        [{"Config": config_name, "RepoTags": [PAUSE_IMAGE], "Layers": ["layer/layer.tar"]}]
    ).encode()
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = PAUSE_TAR.with_suffix(".tar.part")
    with tarfile.open(partial, "w") as image:
        _add_bytes(image, "layer/layer.tar", layer_bytes)
        _add_bytes(image, config_name, config)
        _add_bytes(image, "manifest.json", manifest)
    partial.replace(PAUSE_TAR)


def _go_arch(go: str, env: dict[str, str]) -> str:
    return _run([go, "env", "GOARCH"], env).strip()


def disk_usage(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())


def build(log=print) -> bool:
    """Build every part into the cache unless the stamp says it is there. Returns whether it is there."""
    if built():
        log(f"[ OK ] Kubernetes {VERSION}: ya construido en {CACHE} (no se recompila).")
        return True
    if os.geteuid() != 0:
        log("[AVISO] Kubernetes: construir y arrancar el clúster necesita root; sigo sin Kubernetes.")
        return False
    go = go_binary()
    if go is None:
        log("[FALTA] Kubernetes: no hay compilador de Go (go) para construirlo; sigo sin Kubernetes.")
        return False
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="curso-k8s-build-", dir=os.environ.get("TMPDIR")))
    started = time.monotonic()
    try:
        if not all((BIN_DIR / name).is_file() for name in COMPONENTS):
            build_binaries(go, work)
        if not etcd_binary().is_file():
            unpack_etcd(work)
        if not PAUSE_TAR.is_file():
            build_pause(go, work)
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as exc:
        log(f"[AVISO] Kubernetes {VERSION}: la construcción falló ({exc}); sigo sin Kubernetes.")
        return False
    finally:
        remove_tree(work)
    seconds = time.monotonic() - started
    size = disk_usage(CACHE)
    STAMP.write_text(json.dumps({"version": VERSION, "segundos": round(seconds, 1), "bytes": size}))
    log(
        f"[ OK ] Kubernetes {VERSION}: construido en {seconds / 60:.1f} min; ocupa {size / 2**20:.0f} MiB "
        f"en {CACHE} (la caché de compilación de Go ya se borró)."
    )
    return True
