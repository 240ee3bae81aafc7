"""The chain of processes one `run` creates, seen from the kernel (the proc connector, helpers.proc_events):
every process with when it starts, execs and ends, and the CPU time the engine's daemons spent meanwhile.
Written to cadena.csv in the run folder; two rows per engine reach raw.csv (how many processes, how long)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ... import engines as eng
from ... import proc_events
from ..runner import Arm, Log, Resultado
from .rungs import COMMAND, NEEDS_ROOT

CHAIN_FILE = "cadena.csv"
CHAIN_COLUMNS = ["engine", "pid", "ppid", "name", "cmdline", "start_ms", "exec_ms", "end_ms", "cpu_ms"]
CHAIN_ARM = "la cadena de procesos"  # its key in meta["skipped_arms"]
DAEMON_NAME = {"daemon": "dockerd", "containerd": "containerd"}


def _rows(engine_name: str, procs, cap, daemons: dict) -> pd.DataFrame:
    started = [
        {
            "engine": engine_name,
            "pid": p.pid,
            "ppid": p.ppid,
            "name": p.name,
            "cmdline": p.cmdline[:2000],
            "start_ms": p.start_ms,
            "exec_ms": p.execs[-1][0] if p.execs else np.nan,
            "end_ms": p.end_ms if p.end_ms is not None else np.nan,
        }
        for p in procs
    ]
    # The engine's long-lived daemons: no new process, but CPU time spent in their threads during the
    # launch (it includes any other container the machine ran meanwhile).
    running = [
        {
            "engine": engine_name,
            "pid": pid,
            "ppid": 0,
            "name": DAEMON_NAME.get(daemons[pid], daemons[pid]),
            "cmdline": cap.before.get(pid, "")[:2000],
            "start_ms": np.nan,
            "exec_ms": np.nan,
            "end_ms": np.nan,
            "cpu_ms": round(used, 3),
        }
        for pid, used in cap.roots_cpu_ms.items()
        if pid in daemons
    ]
    return pd.DataFrame(started + running, columns=CHAIN_COLUMNS)


def capture_chains(ctx, image_role: str, envs: dict, log: Log) -> None:
    """One `run` per engine (default network, as a student types it) under the proc connector."""
    if not ctx.require_root(CHAIN_ARM, NEEDS_ROOT["cadena"]):
        return
    ok, why = proc_events.availability()
    if not ok:
        ctx.skip_arm(CHAIN_ARM, why)
        return
    engines = [e for e in ctx.engines if e != "bare" and e in ctx.images]
    if not engines:
        ctx.skip_arm(CHAIN_ARM, "no hay ningún motor de contenedores disponible.")
        return
    workdir = Path(tempfile.mkdtemp(prefix=f"curso-anatomia-cid-{ctx.run_id.lower()}-"))
    ctx.defer(shutil.rmtree, workdir, True)
    frames, info = [], {}
    for engine_name in engines:
        engine = eng.get_engine(engine_name)
        cidfile = workdir / f"{engine_name}.cid"
        arm = Arm(engine_name, "cadena", ctx.images[engine_name][image_role]["name"])
        argv = engine.run_argv(
            arm.image,
            COMMAND,
            run_id=ctx.run_id,
            name=ctx.container_name(engine_name, "cadena"),
            opts=eng.RunOptions(extra=["--cidfile", str(cidfile)]),
        )
        log(f"Capturando la cadena de procesos de un «{engine_name} run»…")
        daemons = {proc.pid: role for role, procs in engine.daemon_processes().items() for proc in procs}
        cap = proc_events.capture(argv, envs[engine_name], roots=list(daemons))
        cid = cidfile.read_text().strip() if cidfile.exists() else ""
        procs = proc_events.chain(cap, markers=[cid] if cid else [])
        total_ms = (cap.t_end_ns - cap.t0_ns) / 1e6
        info[engine_name] = {
            "exit_code": cap.exit_code,
            "events": len(cap.events),
            "lost_events": cap.lost,
            "container_id": cid,
            "processes": len(procs),
            "total_ms": round(total_ms, 3),
        }
        if cap.exit_code != 0:
            log(f"Aviso: el «{engine_name} run» de la cadena terminó con código {cap.exit_code}.")
        frames.append(_rows(engine_name, procs, cap, daemons))
        ctx.record(arm, "cadena_procesos", len(procs), "procesos", rep=1)
        ctx.record(arm, "cadena_total", round(total_ms, 4), "ms", rep=1)
    pd.concat(frames, ignore_index=True).to_csv(ctx.run.dir / CHAIN_FILE, index=False)
    ctx.run.update_meta(
        chain={"file": CHAIN_FILE, "source": "conector de procesos del kernel (netlink)", "per_engine": info}
    )


def load_chain(result: Resultado | None) -> pd.DataFrame:
    """The captured chain of a run (empty if there is none)."""
    if result is None:
        return pd.DataFrame(columns=CHAIN_COLUMNS)
    path = Path(result.run_dir) / CHAIN_FILE
    if not path.exists():
        return pd.DataFrame(columns=CHAIN_COLUMNS)
    numeric = ("start_ms", "exec_ms", "end_ms", "cpu_ms")
    df = pd.read_csv(
        path,
        dtype={"name": str, "cmdline": str},
        keep_default_na=False,
        na_values={c: [""] for c in numeric},
    )
    for column in CHAIN_COLUMNS:
        if column not in df:
            df[column] = np.nan
    return df[CHAIN_COLUMNS]


def chain_split(chain: pd.DataFrame, engine: str, total_ms: float | None = None) -> dict:
    """One engine's captured `run` split at the container's own command: when its `echo` ended, when the
    CLI returned, and the processes that started after the `echo` ended (what tears the container
    down: network, layer, the engine's bookkeeping), by program. {} without an `echo` in the chain."""
    procs = chain[(chain["engine"] == engine) & chain["start_ms"].notna()]
    # the container's own process: named `echo`, or, exec'd too fast to read, proc_events' own name for it
    echo = procs[procs["name"].isin([COMMAND[0], proc_events.CONTAINER_PROCESS])]
    if echo.empty:
        return {}
    first = echo.sort_values("start_ms").iloc[0]
    end = first["end_ms"] if np.isfinite(first["end_ms"]) else first["start_ms"]
    total = (
        float(total_ms) if total_ms is not None and np.isfinite(total_ms) else float(procs["end_ms"].max())
    )
    after = procs[procs["start_ms"] >= end]
    return {
        "echo_ms": float(end),
        "total_ms": total,
        "despues_ms": total - float(end),
        "despues": after.groupby("name").size().sort_values(ascending=False).to_dict(),
        "procesos_despues": int(len(after)),
        "red": network_steps(procs),
    }


NETWORK_TOOLS = ("netavark", "aardvark-dns")  # Podman's network tools; Docker's work is inside dockerd


def network_steps(procs: pd.DataFrame) -> dict[str, float]:
    """{"setup": ms, "teardown": ms}: how long the network tool's `setup` and `teardown` processes lived
    in the capture (Podman's netavark); {} when the chain has none (Docker does it inside dockerd)."""
    out: dict[str, float] = {}
    tools = procs[procs["name"].isin(NETWORK_TOOLS) & procs["end_ms"].notna()]
    for step in ("setup", "teardown"):
        mine = tools[tools["cmdline"].map(lambda c, step=step: step in str(c).split()).astype(bool)]
        mine = mine[mine["name"] == "netavark"] if (mine["name"] == "netavark").any() else mine
        if not mine.empty:
            out[step] = float((mine["end_ms"] - mine["start_ms"]).sum())
    return out
