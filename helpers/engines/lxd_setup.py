"""Setting up LXD or Incus once, for `make setup`: install (services held back), lxcfs and the daemon
started by hand with the closed proxy in its environment from its very first start, the no-network
preseed, the copy-on-write pool (btrfs on a loop file, where the kernel has btrfs), and the course's
images built offline with mmdebstrap and imported (cached: built once)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .. import system
from .lxd import (
    IMAGE_CACHE,
    IMAGE_NESTED,
    IMAGE_SYSTEM,
    LOG_DIR,
    POOL,
    POOL_COW,
    PROXY,
    Flavor,
    admin_command,
    availability,
    check,
    cli,
    daemon_answers,
    daemon_path,
    flavor,
    image_present,
    pools,
    proxy_env,
    query,
    reap_orphans,
    reset_cache,
    user_keys,
)
from .nested import INNER_PODMAN_CONF

DEBIAN_PACKAGE = "lxd"
NESTED_PACKAGES = ["docker.io", "podman", "runc", "uidmap", "fuse-overlayfs", "iptables"]

PRESEED = f"""\
config:
  core.proxy_http: {PROXY}
  core.proxy_https: {PROXY}
  images.auto_update_interval: "0"
networks: []
storage_pools:
- name: {POOL}
  driver: dir
profiles:
- name: default
  devices:
    root:
      path: /
      pool: {POOL}
      type: disk
"""

COW_PACKAGE = "btrfs-progs"
COW_POOL_SIZE = "4GiB"  # a sparse loop file: it takes on the host only what the instances write

# The nested engines inside a system container: no bridge, no firewall rule (runs use --network none),
# and Podman with the same containers.conf as any Podman inside a container (engines.nested).
INNER_DOCKER_CONF = '{"bridge": "none", "iptables": false, "ip6tables": false}\n'


def start_daemon(f: Flavor, log, timeout: float = 60) -> bool:
    """lxcfs, then the daemon in the background with the proxy in its environment; wait until ready.
    (Debian's init script fails here: it raises `ulimit -n`, which this kind of host refuses.)"""
    if daemon_answers(f):
        return True
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    lxcfs_dir = Path("/var/lib/lxcfs")
    _drop_dead_fuse(lxcfs_dir, log)
    if shutil.which("lxcfs") and not os.path.ismount(lxcfs_dir):
        lxcfs_dir.mkdir(parents=True, exist_ok=True)
        with open(LOG_DIR / "lxcfs.log", "ab") as out:
            subprocess.Popen(
                ["lxcfs", str(lxcfs_dir)],
                stdout=out,
                stderr=out,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        for _ in range(20):
            if os.path.ismount(lxcfs_dir):
                break
            time.sleep(0.1)
    daemon = daemon_path(f)
    if daemon is None:
        log(f"[AVISO] {f.display}: no encuentro el daemon «{f.daemon}».")
        return False
    log(f"Arrancando el daemon de {f.display} sin red (proxy cerrado en {PROXY})…")
    with open(LOG_DIR / "daemon.out", "ab") as out:
        argv = [daemon, "--group", f.group, f"--logfile={LOG_DIR / 'daemon.log'}"]
        subprocess.Popen(
            argv, stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=proxy_env(), start_new_session=True
        )
    subprocess.run([daemon, "waitready", f"--timeout={int(timeout)}"], capture_output=True, env=proxy_env())
    return daemon_answers(f)


def _drop_dead_fuse(path: Path, log) -> None:
    """A FUSE mount whose daemon died (lxcfs killed, or gone with a restored machine) answers every
    access with ENOTCONN: detach it, so lxcfs can mount there again."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENOTCONN:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)
            log(f"[ OK ] {path}: el montaje de un lxcfs que ya no corre, desmontado.")


def initialised(f: Flavor) -> bool:
    pools = query("/1.0/storage-pools", f) or []
    return any(p.rstrip("/").endswith(f"/{POOL}") for p in pools)


def initialise(f: Flavor, log) -> None:
    """The no-network preseed (once); the proxy keys are set again every time (cheap, and sure)."""
    if not initialised(f):
        init = (
            [f.cli, "admin", "init", "--preseed"]
            if f.name == "incus"
            else [daemon_path(f), "init", "--preseed"]
        )
        result = subprocess.run(
            init, input=PRESEED, capture_output=True, text=True, env=proxy_env(), timeout=120
        )
        check(result, "init --preseed")
        log(f"[ OK ] {f.display} inicializado sin red: pool «{POOL}» (dir), ninguna red, ningún puente.")
    for key in ("core.proxy_http", "core.proxy_https"):
        check(cli(["config", "set", key, PROXY], f=f), key)


def build_image(f: Flavor, alias: str, packages: list[str], log) -> None:
    """mmdebstrap (Debian's mirror through apt, as for the course's other images) + metadata.yaml,
    imported into the daemon; the tarballs are kept in the cache, so this runs once."""
    IMAGE_CACHE.mkdir(parents=True, exist_ok=True)
    rootfs = IMAGE_CACHE / f"{alias}.tar"
    if not rootfs.exists():
        log(f"Construyendo la imagen «{alias}» con mmdebstrap (de 20 s a 2 min, una sola vez)…")
        with tempfile.TemporaryDirectory() as tmp:
            hook = Path(tmp) / "hook.sh"
            hook.write_text(
                '#!/bin/sh\nset -e\nR="$1"\n'
                'if [ -x "$R/usr/bin/dockerd" ]; then mkdir -p "$R/etc/docker"; '
                f"printf '%s' '{INNER_DOCKER_CONF.strip()}' > \"$R/etc/docker/daemon.json\"; fi\n"
                'if [ -x "$R/usr/bin/podman" ]; then mkdir -p "$R/etc/containers"; '
                f"cat > \"$R/etc/containers/containers.conf\" <<'EOF'\n{INNER_PODMAN_CONF}EOF\nfi\n"
            )
            hook.chmod(0o755)
            partial = Path(tmp) / "rootfs.tar"
            argv = [
                "mmdebstrap",
                "--quiet",
                "--variant=minbase",
                "--include=" + ",".join(["systemd", "systemd-sysv", *packages]),
                f'--customize-hook={hook} "$1"',
                "bookworm",
                str(partial),
            ]
            check(subprocess.run(argv, capture_output=True, text=True, timeout=900), "mmdebstrap")
            shutil.move(partial, rootfs)
    meta = IMAGE_CACHE / f"{alias}.meta.tar"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "metadata.yaml").write_text(
            f"architecture: x86_64\ncreation_date: {int(time.time())}\nproperties:\n"
            f"  description: curso {alias}\n  os: debian\n  release: bookworm\n"
        )
        subprocess.run(["tar", "-C", tmp, "-cf", str(meta), "metadata.yaml"], check=True)
    check(
        cli(["image", "import", str(meta), str(rootfs), "--alias", alias], f=f, timeout=600), "image import"
    )
    log(f"[ OK ] Imagen «{alias}» importada en {f.display} ({rootfs.stat().st_size / 2**20:.0f} MB).")


def kernel_has_btrfs() -> bool:
    """Whether this kernel mounts btrfs (the copy-on-write pool needs it)."""
    try:
        return "btrfs" in Path("/proc/filesystems").read_text().split()
    except OSError:
        return False


def ensure_cow_pool(f: Flavor, log) -> bool:
    """The copy-on-write pool: btrfs on a sparse loop file the daemon makes and mounts itself. Where the
    kernel has no btrfs (or btrfs-progs cannot be installed) instances stay on the `dir` pool."""
    reset_cache()
    if POOL_COW in pools():
        return True
    if not kernel_has_btrfs():
        log(
            "[AVISO] El kernel no tiene btrfs: los contenedores de sistema usan el pool «dir» (copia entera)."
        )
        return False
    if not shutil.which("mkfs.btrfs") and shutil.which("apt-get"):
        _apt_install_held([COW_PACKAGE], log)
    if not shutil.which("mkfs.btrfs"):
        log(f"[AVISO] Falta {COW_PACKAGE}: los contenedores de sistema usan el pool «dir» (copia entera).")
        return False
    result = cli(["storage", "create", POOL_COW, "btrfs", f"size={COW_POOL_SIZE}"], f=f, timeout=120)
    reset_cache()
    if result.returncode != 0:
        log(f"[AVISO] {f.display} no creó el pool btrfs: {(result.stderr or result.stdout).strip()[-200:]}")
        return False
    log(f"[ OK ] Pool «{POOL_COW}» (btrfs, copia en escritura) creado en {f.display}.")
    return True


def warm_pool(f: Flavor, image: str, pool: str, log) -> None:
    """Unpack an image into the pool once (LXD keeps that image volume), so that the first instance
    a run creates there is a snapshot like every other, not an unpacking."""
    fingerprint = (query(f"/1.0/images/aliases/{image}", f) or {}).get("target", "")
    volumes = query(f"/1.0/storage-pools/{pool}/volumes/image", f) or []
    if not fingerprint or any(v.rstrip("/").endswith(fingerprint) for v in volumes):
        return
    name = f"curso-calentar-{os.getpid()}"
    config = [arg for key, value in user_keys(None).items() for arg in ("-c", f"{key}={value}")]
    try:
        check(cli(["init", image, name, "--storage", pool, *config], f=f, timeout=600), "init")
        log(f"[ OK ] Imagen «{image}» desempaquetada en el pool «{pool}».")
    finally:
        cli(["delete", "--force", name], f=f)


def provision(log) -> None:
    """`make setup`: install LXD where root and apt allow (services held back), start lxcfs and the
    daemon with the closed proxy, preseed without network, build and import the images once, the
    copy-on-write pool, reap."""
    f = flavor()
    if f is None:
        if not (system.is_root() and shutil.which("apt-get")):
            log(
                f"[AVISO] No hay LXD ni Incus: los contenedores de sistema de verdad se omiten ({admin_command(None)})."
            )
            return
        _apt_install_held([DEBIAN_PACKAGE], log)
        f = flavor()
        if f is None:
            log("[AVISO] apt no pudo instalar LXD: el cuaderno 08 usará Podman con --systemd=always.")
            return
    if not system.is_root():
        ok, why = availability()
        log(f"[ OK ] {f.display} disponible." if ok else f"[AVISO] {f.display}: {why}")
        return
    if not start_daemon(f, log):
        log(f"[AVISO] El daemon de {f.display} no arrancó (mira {LOG_DIR}/daemon.log).")
        return
    initialise(f, log)
    if not image_present(IMAGE_SYSTEM, f):
        build_image(f, IMAGE_SYSTEM, [], log)
    if not image_present(IMAGE_NESTED, f):
        build_image(f, IMAGE_NESTED, NESTED_PACKAGES, log)
    reap_orphans(log=lambda line: log(f"[ OK ] {line}"))
    if ensure_cow_pool(f, log):
        for image in (IMAGE_SYSTEM, IMAGE_NESTED):
            warm_pool(f, image, POOL_COW, log)
    reset_cache()
    ok, why = availability()
    log(f"[ OK ] {f.display} listo, sin red." if ok else f"[AVISO] {f.display}: {why}")


def _apt_install_held(packages: list[str], log) -> None:
    """apt-get install with services held back (policy-rc.d), so the daemon's first start is ours,
    with the closed proxy already in its environment."""
    policy = Path("/usr/sbin/policy-rc.d")
    ours = not policy.exists()
    if ours:
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
    try:
        log(f"Instalando con apt: {', '.join(packages)} (unos 15 s)…")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", *packages], env=env, capture_output=True, timeout=900
        )
    finally:
        if ours:
            policy.unlink(missing_ok=True)
