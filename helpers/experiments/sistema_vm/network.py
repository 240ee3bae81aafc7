"""The post's network test: Debian's iperf3, its server inside each scenario, its client on the host,
aimed only at 127.0.0.1, each through the scenario's own path (HOPS):
- aplicacion: the engine's port published on 127.0.0.1 (its proxy, its bridge): a bridge of the run's own
  that leads nowhere off the machine (helpers.engines.bridges), never the engine's default one;
- sistema_lxd: an LXD proxy device listening on 127.0.0.1 (the instance has no network card);
- anidado_lxd: the inner engine's port published on the system container's 127.0.0.1 (its proxy and a
  bridge of its own inside), reached through a proxy device;
- the VM: QEMU's user network (slirp) with `restrict=on` (the guest reaches nothing) and one forward
  from 127.0.0.1, a virtio-net card and the guest's own network stack.
iperf3 reaches the instances like fio (bundle.py): one folder, read-only at /iperf; the VM's card needs
the virtio_net module of the guest's own kernel, kept in that folder (mod/).
Each measurement is bounded in time (SECONDS) and in bytes (at most MAX_RATE for SECONDS); one row per
measurement, Gbit/s received, in the run's own loop «red», as many rounds as a verdict needs (ROUNDS), arms shuffled per round.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time

from ... import engines as eng
from ... import vm
from ...engines import bridges, lxd, lxd_nested
from ...errors import ComandoFallido
from .. import verdict
from ..red.load import LOOPBACK, free_port
from ..runner import Log, Progress, RunContext, measure_rounds
from .bundle import Bundle
from .kinds import NESTED, RED, VM_KINDS, Arm, kind_label

IPERF = Bundle("iperf3", "/iperf", "iperf3")
DEBIAN_PACKAGE = IPERF.package
PORT = 5201  # the server's port inside every instance
SECONDS = 1
MAX_RATE = "40G"  # bit/s: at most SECONDS × 40 Gbit/s = 5 GB per measurement, memory to memory
ROUNDS = verdict.MIN_N  # as many rounds as a verdict needs, no more (REPETICIONES if it is fewer)
# No warm-up round (CALENTAMIENTO is for the workloads' and the nested engine's loops): in a run of this
# experiment without one, no scenario's first iperf3 was its lowest; in the quiet run with one, the VM's
# first measured round still was (0.42 Gbit/s, the others 0.46-0.51): the spread is noise, not a cold start.
# It cost 4 s of the quiet run's 35.
WARMUP = 0
# A test refused or reset before its first byte (the server behind QEMU's forward or a proxy not yet
# listening again after the previous test) is tried again: it measured nothing, so trying again biases
# nothing. The fresh course's emulated VM did that once in its first round (2026-11-27).
TRIES, RETRY_PAUSE = 3, 1.0
GUEST_ADDRESS = "10.0.2.15/24"  # QEMU's user network hands the guest this address; the forward goes to it
NET_MODULES = {  # the guest kernel's modules for a virtio-net card, in load order
    "failover": "net/core/failover.ko",
    "net_failover": "drivers/net/net_failover.ko",
    "virtio_net": "drivers/net/virtio_net.ko",
}
KINDS = ("aplicacion", "sistema_lxd", NESTED, "vm")  # the post's four scenarios
PIDFILE = "/run/curso-iperf.pid"
DEVICE = "iperf"  # the proxy device's name
# The hops between the client on the host and the server, per scenario (the variant of raw.csv)
HOPS = {
    "aplicacion": [
        "el puerto que el motor publica en 127.0.0.1 (su proxy)",
        "un puente propio de la corrida, sin salida de esta máquina",
    ],
    "sistema_lxd": ["el dispositivo proxy de LXD (127.0.0.1 del host → 127.0.0.1 de la instancia)"],
    NESTED: [
        "el dispositivo proxy de LXD",
        "el puerto que publica el motor de dentro (su proxy)",
        "un puente más, el del motor de dentro",
    ],
    "vm": [
        "el reenvío de QEMU desde 127.0.0.1",
        "la red de usuario de QEMU (slirp, restringida)",
        "la tarjeta virtual virtio-net",
        "la pila de red del huésped",
    ],
}


def hops(variant: str) -> list[str]:
    return HOPS.get(variant.removesuffix("_emulada").removesuffix("_kvm"), [])


def paths_sentence(variants) -> str:
    """One Spanish sentence naming the hops of each measured path, in the scenarios' order."""
    order = {k: i for i, k in enumerate(KINDS)}
    parts = [
        f"{kind_label(v)}: {', '.join(hops(v))}"
        for v in sorted(set(variants), key=lambda v: order.get(v.split("_emulada")[0].split("_kvm")[0], 9))
        if hops(v)
    ]
    if not parts:
        return ""
    return (
        "Camino de iperf3 (cliente en el host, siempre a 127.0.0.1; servidor dentro de la instancia): "
        + "; ".join(parts)
        + "."
    )


def available() -> bool:
    """iperf3 on the host (the client) and its folder for the instances (the servers)."""
    return IPERF.available() and shutil.which(IPERF.name) is not None


def reason() -> str:
    return IPERF.reason("la prueba de red")


def vm_ready() -> bool:
    """The folder holds the guest kernel's virtio-net modules (without them the VM has no card)."""
    return all((IPERF.folder / "mod" / f"{m}.ko").exists() for m in NET_MODULES)


def provision(log: Log) -> bool:
    """`make setup`: iperf3's folder and disk image, with the guest kernel's network modules (mod/)."""

    def modules(folder) -> bool:
        try:
            vm.guest_modules(NET_MODULES, folder / "mod")
        except (ComandoFallido, OSError, subprocess.SubprocessError) as exc:
            log(
                f"[AVISO] Sin los módulos de red del kernel de la VM; la VM queda fuera de la prueba de red: {exc}"
            )
        return True

    return IPERF.build(log, "la prueba de red", extra=modules)


def server(port: int = PORT) -> list[str]:
    """iperf3's server from the folder, in the foreground, one port."""
    return IPERF.argv("-s", "-p", str(port))


def client(port: int, seconds: float = SECONDS) -> list[str]:
    """The host's iperf3 client: 127.0.0.1 only, bounded in time and in rate (so in bytes), JSON out."""
    return [
        IPERF.name,
        "-c",
        LOOPBACK,
        "-p",
        str(port),
        "-t",
        str(seconds),
        "-b",
        MAX_RATE,
        "-J",
        "--connect-timeout",
        "3000",
    ]


def gbits(output: str) -> float:
    """Gbit/s the receiver counted, from iperf3's JSON; a Spanish error when it reports one."""
    try:
        data = json.loads(output or "{}")
    except ValueError as exc:
        raise ComandoFallido(f"iperf3 no dio JSON: {output.strip()[-200:]}") from exc
    if data.get("error"):
        raise ComandoFallido(f"iperf3 falló: {data['error']}")
    try:
        return float(data["end"]["sum_received"]["bits_per_second"]) / 1e9
    except (KeyError, TypeError, ValueError) as exc:
        raise ComandoFallido("iperf3 no dio su resumen («end.sum_received»).") from exc


def measure_gbits(port: int, seconds: float = SECONDS, tries: int = TRIES) -> float:
    """One measurement; a test that failed before any byte was counted (the connection refused or reset
    while the server behind a proxy or QEMU's forward was still taking down the previous test) is tried
    again, up to `tries` times in all, RETRY_PAUSE apart."""
    argv = client(port, seconds)
    for _ in range(tries - 1):
        output = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 30).stdout
        if not before_any_byte(output):
            return gbits(output)
        time.sleep(RETRY_PAUSE)
    return gbits(subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 30).stdout)


def before_any_byte(output: str) -> bool:
    """Whether iperf3's JSON reports an error and no transfer at all (no interval was measured)."""
    try:
        data = json.loads(output)
    except ValueError:
        return True  # no JSON at all: iperf3 never got as far as a test
    return bool(data.get("error")) and not data.get("intervals")


def wait_server(port: int, timeout: float = 30) -> None:
    """Until a tiny test (64 KiB) gets through: a proxy accepts before the server behind it listens."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        argv = [IPERF.name, "-c", LOOPBACK, "-p", str(port), "-n", "64K", "-J", "--connect-timeout", "1000"]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        try:
            gbits(result.stdout)
            return
        except ComandoFallido as exc:
            last = str(exc)
        time.sleep(0.3)
    raise ComandoFallido(f"el servidor iperf3 no respondió en 127.0.0.1:{port} en {timeout:.0f} s ({last})")


# ---------------------------------------------------------------- the servers, one per scenario
def start_application(ctx: RunContext, own, engine_name: str, image: str) -> int:
    """A container of the host's engine with the server, on a bridge of the run's own that leads nowhere
    off the machine (bridges.py), its port published on 127.0.0.1."""
    engine = eng.get_engine(engine_name)
    ok, why = bridges.availability(engine_name)
    if not ok:
        raise ComandoFallido(f"{why.rstrip('.')}; sin él, este contenedor no publica ningún puerto.")
    bridge = bridges.create(engine_name, ctx.container_name("red", "puente"), ctx.run_id, engine.env())
    own(bridges.remove, bridge, engine.env())  # after the container (clean-up runs last-in first-out)
    port = free_port()
    opts = eng.RunOptions(
        network=bridge.name, publish=[(port, PORT)], volumes=[(str(IPERF.folder), IPERF.where, "ro")]
    )
    name = ctx.container_name("red", "aplicacion")
    argv = engine.run_argv(
        image, server(), run_id=ctx.run_id, name=name, remove=False, detach=True, opts=opts
    )
    own(engine.remove, [name])
    result = subprocess.run(argv, capture_output=True, text=True, env=engine.env(), timeout=120)
    if result.returncode != 0:
        raise ComandoFallido(
            f"{engine.display} no arrancó el servidor: {(result.stderr or '').strip()[-300:]}"
        )
    return port


def start_system(own, name: str) -> int:
    """The server as a daemon in the system container, behind a proxy device on the host's 127.0.0.1."""
    port = free_port()
    own(stop_system, name)
    lxd.add_proxy(name, DEVICE, port, PORT)
    lxd.check(lxd.execute(name, [*server(), "-D", "-I", PIDFILE]), "iperf3 -s")
    return port


def stop_system(name: str) -> None:
    """The server and the proxy device out of a system container that goes on running (never raises)."""
    lxd.execute(name, ["sh", "-c", f"[ -f {PIDFILE} ] && kill $(cat {PIDFILE}); rm -f {PIDFILE}"])
    lxd.remove_device(name, DEVICE)


def start_nested(own, name: str, engine: str, image: str) -> int:
    """The server in a container of the engine nested in the system container, its port published on the
    instance's 127.0.0.1, reached from the host through a proxy device."""
    port = free_port()
    own(stop_nested, name, engine)
    lxd_nested.start_server(name, engine, image, server(), PORT, volumes=(IPERF.where,))
    lxd.add_proxy(name, DEVICE, port, PORT)
    return port


def stop_nested(name: str, engine: str) -> None:
    lxd_nested.stop_server(name, engine)
    lxd.remove_device(name, DEVICE)


def start_vm(ctx: RunContext, own, accel: str) -> tuple[int, vm.VM]:
    """A VM of its own with one card on QEMU's restricted user network and one forward from 127.0.0.1;
    the guest loads the card's modules from the folder and starts the server."""
    port = free_port()
    machine = vm.VM(
        ctx.container_name("red", "vm"),
        accel=accel,
        workdir=vm.VM_DIR / "instancias" / ctx.run_id,
        extra_drives=(IPERF.image,),
        forward=(port, PORT),
    )
    own(machine.stop)
    machine.boot()
    machine.sh("stty -echo; PS1=''")
    machine.sh(f"mkdir -p {IPERF.where} && mount -t ext4 -o ro /dev/vdb {IPERF.where}")
    machine.sh(" && ".join(f"insmod {IPERF.where}/mod/{m}.ko" for m in NET_MODULES))
    machine.sh(f"ip link set lo up && ip addr add {GUEST_ADDRESS} dev eth0 && ip link set eth0 up")
    machine.sh(" ".join([*server(), "-D"]))
    return port, machine


# ---------------------------------------------------------------- the phase
def rounds(
    ctx: RunContext, cfg, arms: list[Arm], running: dict, nested, accel: str, progress: Progress, log: Log
) -> None:
    """iperf3 in each scenario the run has, a few rounds through measure_rounds (loop «red»); every
    server, proxy device and VM of the phase is gone at its end (the system containers go on)."""
    if "sistema_lxd" not in cfg.tipos:
        ctx.skip_arm(
            "red (iperf3)", "la prueba de red compara con el contenedor de sistema LXD, que no está en TIPOS."
        )
        return
    if not available():
        ctx.skip_arm("red (iperf3)", reason())
        return
    log(
        f"Red: iperf3 dentro de cada instancia, el cliente en el host (127.0.0.1), {SECONDS} s por medida, "
        f"{min(cfg.repeticiones, ROUNDS)} rondas."
    )
    undo: list = []

    def own(fn, *args) -> None:
        """A clean-up step of this phase: run at its end, and by the run if the phase never ends."""
        ctx.defer(fn, *args)
        undo.append((fn, args))

    try:
        _rounds(ctx, cfg, arms, running, nested, accel, own, progress)
    finally:
        for fn, args in reversed(undo):
            fn(*args)


def _rounds(ctx: RunContext, cfg, arms: list[Arm], running: dict, nested, accel: str, own, progress) -> None:
    ports: dict[str, int] = {}
    labels: dict[str, Arm] = {}
    steps = len(KINDS)
    for arm in arms:
        if arm.kind not in KINDS or arm.kind == NESTED:
            continue
        progress(len(ports), steps, f"red: preparando {arm.label}")
        try:
            if arm.kind == "aplicacion":
                ports[arm.variant] = start_application(ctx, own, arm.engine, arm.image)
            elif arm.kind == "sistema_lxd" and running.get(arm):
                ports[arm.variant] = start_system(own, running[arm][0].name)
            elif arm.kind in VM_KINDS and not vm_ready():
                ctx.skip_arm(
                    f"red: {arm.label}", "faltan los módulos de red del kernel de la VM: «make setup»."
                )
                continue
            elif arm.kind in VM_KINDS:
                ports[arm.variant], _ = start_vm(ctx, own, accel)
            else:
                continue
            labels[arm.variant] = arm
        except Exception as exc:  # noqa: BLE001 - one scenario failing leaves the others
            ctx.skip_arm(f"red: {arm.label}", f"su servidor iperf3 no arrancó: {exc}")
            ports.pop(arm.variant, None)
    engine = next((e for e in (cfg.motor, *eng.CONTAINER_ENGINES) if nested and e in nested.images), None)
    if engine is not None:
        arm = Arm(engine, NESTED, nested.images[engine], f"{eng.DISPLAY[engine]} anidado en LXD", NESTED)
        try:
            ports[NESTED] = start_nested(own, nested.instance.name, engine, nested.images[engine])
            labels[NESTED] = arm
        except Exception as exc:  # noqa: BLE001 - one scenario failing leaves the others
            ctx.skip_arm(f"red: {arm.label}", f"su servidor iperf3 no arrancó: {exc}")
    for variant in list(ports):
        try:
            wait_server(ports[variant])
        except ComandoFallido as exc:
            ctx.skip_arm(f"red: {labels[variant].label}", str(exc))
            del ports[variant]
    if not ports:
        return

    def one(arm: Arm) -> list:
        return [(RED, round(measure_gbits(ports[arm.variant]), 4), "Gbit/s")]

    measure_rounds(
        ctx,
        [labels[v] for v in ports],
        repetitions=min(cfg.repeticiones, ROUNDS),
        warmup=WARMUP,
        measure=one,
        progress=progress,
        loop="red",
        meta={
            "iperf3": {
                "client": " ".join(client(0)).replace(" -p 0", " -p PUERTO"),
                "seconds": SECONDS,
                "max_rate": MAX_RATE,
                "paths": {v: hops(v) for v in ports},
            }
        },
    )
