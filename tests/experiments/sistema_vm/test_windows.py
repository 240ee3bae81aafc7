"""Experiment 8: what is inside each timed window of the boot, as the page says it (kinds.WINDOWS,
kinds.LXD_WINDOWS), held to the code that measures it.

- every kind of instance says what its «arranque hasta listo» window holds, from where to where;
- the kinds with systemd are «listo» on one signal, emitted by the instance itself: the VM's ready unit
  and LXD's are the same unit, writing the marker to a different place (the console, or a named pipe);
- the busybox kinds are «listo» at init's `sysinit` line, the line their inittab really holds;
- LXD's phases are recorded under the names the page explains, and no command reaches the instance
  from the host between `lxc start` and its signal (real LXD: the `engines` test at the end).
"""

from __future__ import annotations

import subprocess

import pytest

from helpers import measure, results, vm
from helpers.engines import lxd
from helpers.errors import ComandoFallido
from helpers.experiments.runner import RunContext
from helpers.experiments.sistema_vm import kinds, memory
from helpers.experiments.sistema_vm.lxd_instances import LXDInstance, lxd_name
from helpers.vm.assets import INITTAB_COMMON

from .test_lxd import require_lxd


def test_every_kind_says_what_its_boot_window_holds():
    assert set(kinds.WINDOWS) == set(kinds.KINDS) - {kinds.NESTED}  # never timed to «listo»
    for kind in set(kinds.LXD_KINDS) - {kinds.NESTED}:  # LXD's window: the sum of its phases, each named
        assert kinds.WINDOWS[kind].startswith(" + ".join(kinds.LXD_WINDOWS))
    assert "fuera de la ventana" in kinds.WINDOWS["sistema_lxd"]  # what is added before `lxc start`


def test_lxd_phases_are_recorded_under_the_windows_the_page_explains():
    assert list(kinds.LXD_WINDOWS) == list(kinds.FASES_LXD)


def test_the_vm_and_lxd_are_ready_on_the_same_unit_and_the_page_says_which():
    console = vm.ready_unit()  # the VM's disk and Podman's image hold this one
    in_lxd = vm.ready_unit(kinds.LXD_READY_PIPE)
    assert in_lxd.replace(kinds.LXD_READY_PIPE, "/dev/console") == console
    assert kinds.SYSTEMD_READY in console and f"echo {kinds.READY} > /dev/console" in console
    assert f"echo {kinds.READY} > {kinds.LXD_READY_PIPE}" in in_lxd
    said = [kinds.WINDOWS["sistema_systemd"], kinds.WINDOWS["vm_systemd"], kinds.LXD_WINDOWS["systemd"]]
    assert all(kinds.SYSTEMD_READY in text and vm.READY_UNIT_NAME in text for text in said)
    assert kinds.LXD_READY_PIPE in kinds.LXD_WINDOWS["systemd"]


def test_the_busybox_kinds_are_ready_at_the_sysinit_line_their_inittab_holds():
    assert f"::sysinit:/bin/echo {kinds.READY}" in INITTAB_COMMON
    for kind in ("sistema", "vm"):
        assert "`sysinit`" in kinds.WINDOWS[kind] and kinds.SYSTEMD_READY not in kinds.WINDOWS[kind]


def test_memory_given_back_reads_both_figures_while_memtoca_still_holds_them():
    """«durante» is read at «tocado», «después» SETTLE_S after «liberado»: memtoca's pause after each
    must outlast that, or «después» would be read after the process left, not after the free."""
    assert memory.SETTLE_S < memory.PAUSE_S


# ---------------------------------------------------------------- the signal the host sleeps on
def test_the_pipe_wakes_the_host_when_the_instance_writes_its_marker(tmp_path):
    fifo = measure.Fifo(tmp_path)
    try:
        writer = subprocess.Popen(["sh", "-c", f"echo arrancando; echo {kinds.READY} > {fifo.path}"])
        text = fifo.wait_for(kinds.READY, timeout=30)
        writer.wait(timeout=30)
    finally:
        fifo.close()
    assert text == f"{kinds.READY}\n"
    assert not tmp_path.joinpath(measure.Fifo.NAME).exists()


def test_the_pipe_says_so_when_the_writer_leaves_without_the_marker(tmp_path):
    fifo = measure.Fifo(tmp_path)
    try:
        subprocess.run(["sh", "-c", f"echo 'failed' > {fifo.path}"], check=True, timeout=30)
        with pytest.raises(ComandoFallido, match="sin «CURSO-LISTO»"):
            fifo.wait_for(kinds.READY, timeout=30)
    finally:
        fifo.close()


def test_the_pipe_gives_up_when_nobody_writes(tmp_path):
    fifo = measure.Fifo(tmp_path)
    try:
        with pytest.raises(TimeoutError, match="no llegó"):
            fifo.wait_for(kinds.READY, timeout=0.2)
    finally:
        fifo.close()


# ---------------------------------------------------------------- real LXD
@pytest.mark.engines
def test_lxd_is_ready_on_its_own_signal_with_nothing_sent_to_it_meanwhile(results_tmp, monkeypatch):
    """Every `lxc` command the host runs is recorded (and still runs): none between `start` and the
    signal; when the signal came, systemd inside really says the boot is over."""
    require_lxd()
    sent: list[list[str]] = []
    real_cli = lxd.cli

    def recording(argv, **kw):
        sent.append(list(argv))
        return real_cli(argv, **kw)

    monkeypatch.setattr(lxd, "cli", recording)
    with results.Run(kinds.EXPERIMENT, {}, results_tmp) as run:
        ctx = RunContext(run=run, engines=[], skipped={})
        instance = LXDInstance(ctx, "sistema_lxd", lxd_name(ctx, "ventana"))
        try:
            instance.start()
            after_start = [argv[0] for argv in sent[sent.index(["start", instance.name]) + 1 :]]
            assert after_start == []
            assert list(instance.phases) == list(kinds.LXD_WINDOWS)
            assert lxd.system_state(instance.name) in lxd.READY_STATES
        finally:
            instance.stop()
            ctx.run_deferred()
