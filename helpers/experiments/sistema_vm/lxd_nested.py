"""Scenario 3 of the post: an engine nested in an unprivileged system container (LXD, security.nesting,
no --privileged), prepared once per run, then measured in two ways:
- the workloads (gzip, fio) by `exec` in a container the inner engine keeps running, in the same
  rounds as every other kind (phases.workloads);
- `ENGINE run --rm --network none IMAGE echo ok` inside against the same engine on the host,
  interleaved (run_rounds).
The instance lives on the `dir` pool: its storage is ext4 like the host engine's overlay2, so the I/O
comparison is not about the pool; what it wrote over its copy of the image is recorded apart."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ... import engines as eng
from ...engines import lxd, lxd_nested
from ..runner import Log, Progress, RunContext, measure_rounds
from .kinds import DISCO_ESCRITO, HOST_RUN, MB, NESTED, RUN_MOTOR, Arm
from .lxd_instances import LXDInstance, timed_host_run


@dataclass
class Nested:
    """The prepared instance, and for each inner engine that answers, the image it knows."""

    instance: LXDInstance
    images: dict[str, str] = field(default_factory=dict)  # engine -> inner reference
    host_images: dict[str, str] = field(default_factory=dict)  # engine -> the host engine's reference
    workers: dict[str, str] = field(default_factory=dict)  # engine -> its running container (workloads)

    def workload_engine(self, preferred: str) -> str | None:
        """The inner engine for gzip and fio (the one the application container uses, if it answers),
        with its container started (not timed); None if there is none."""
        engine = preferred if preferred in self.images else next(iter(self.images), None)
        if engine is not None and engine not in self.workers:
            self.workers[engine] = self.instance.start_worker(engine, self.images[engine])
        return engine


def prepare(ctx: RunContext, make, arm, log: Log) -> Nested | None:
    """Start the instance, wait for each inner engine, hand it the host's «alpine» image offline."""
    inner = [e for e in eng.CONTAINER_ENGINES if e in ctx.engines]
    if not inner:
        ctx.skip_arm("motor anidado", "no hay Docker ni Podman en el host para pasarle una imagen.")
        return None
    log("Preparando el escenario (3): un motor dentro de un contenedor de sistema LXD sin privilegios.")
    nested = Nested(make(arm, "anidado"))
    nested.instance.start()
    work = Path(tempfile.mkdtemp(prefix="curso-anidado-"))
    ctx.defer(shutil.rmtree, work, ignore_errors=True)
    for engine in inner:
        image = ctx.images[engine]["alpine"]["name"]
        try:
            with ctx.guard(engine):
                lxd_nested.inner_ready(nested.instance.name, engine)
                nested.images[engine] = lxd_nested.hand_in_image(nested.instance.name, engine, image, work)
                nested.host_images[engine] = image
        except Exception as exc:  # noqa: BLE001 - one nested engine failing leaves the other
            ctx.skip_arm(f"{engine} anidado", f"no arrancó dentro del contenedor de sistema: {exc}")
    ctx.run.update_meta(
        nested={
            "security.nesting": True,
            "privileged": False,
            "pool": nested.instance.pool,
            "uid_map": lxd.uid_map(nested.instance.name).split(),
            "engines": list(nested.images),
        }
    )
    return nested if nested.images else None


def run_rounds(ctx: RunContext, cfg, nested: Nested, progress: Progress, log: Log) -> None:
    """The same `run --rm … echo ok` on the host and inside the system container, interleaved."""
    log("4/4 Motor anidado: el mismo «run --rm … echo ok» en el host y dentro de un contenedor de sistema.")
    arms, host_argv = [], {}
    for engine, image in nested.host_images.items():
        host = eng.get_engine(engine)
        host_argv[engine] = (
            host.run_argv(image, ["echo", "ok"], run_id=ctx.run_id, opts=eng.RunOptions(network="none")),
            host.env(),
        )
        arms += [
            Arm(engine, HOST_RUN, image, f"{eng.DISPLAY[engine]} en el host", HOST_RUN),
            Arm(engine, NESTED, image, f"{eng.DISPLAY[engine]} anidado en LXD", NESTED),
        ]

    def run_one(a) -> list:
        if a.variant == HOST_RUN:
            return [(RUN_MOTOR, round(timed_host_run(*host_argv[a.engine]), 3), "ms")]
        return [
            (RUN_MOTOR, round(nested.instance.timed_inner_run(a.engine, nested.images[a.engine]), 3), "ms")
        ]

    measure_rounds(
        ctx,
        arms,
        measure=run_one,
        progress=progress,
        loop="anidado",  # the run's third loop: its round rows carry its name
    )


def finish(ctx: RunContext, nested: Nested, arm) -> None:
    """What the instance wrote over its copy of the image (inner images, layers, logs), then remove it."""
    written = max(nested.instance.disk_bytes() - nested.instance.created_bytes, 0)
    ctx.record(arm, DISCO_ESCRITO, round(written / MB, 4), "MB", rep=1)
    nested.instance.stop()
