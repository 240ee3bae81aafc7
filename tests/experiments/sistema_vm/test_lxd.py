"""Experiment 8 with real LXD (or Incus): the system container and the nested engine arms measure, their
claims are judged by the shared rule, nothing of the run is left; without LXD the Podman stand-in is
planned, named as such."""

from __future__ import annotations

import sys

import pytest

from helpers.engines import lxd
from helpers.experiments import sistema_vm as exp
from helpers.experiments.verdict import STATUSES


def require_lxd():
    lxd.reset_cache()
    ok, why = lxd.availability()
    if not ok:
        print(f"\n[omitido] LXD/Incus no está disponible aquí: {why}", file=sys.stderr)
        pytest.skip(f"LXD/Incus no está disponible: {why}")


def test_without_lxd_the_podman_stand_in_is_planned(monkeypatch):
    monkeypatch.setattr(lxd, "availability", lambda: (False, "no hay LXD ni Incus en esta máquina."))
    cfg = exp.config(tipos=["sistema_lxd", "anidado_lxd"], repeticiones=2)
    skipped = {}
    arms = exp.plan(cfg, ["podman"], {}, "tcg", skip=skipped.__setitem__)
    assert exp.kind_label("sistema_lxd") in skipped and "sustituto" in skipped[exp.kind_label("sistema_lxd")]
    planned = [a.kind for a in arms]
    if exp.systemd_image() is not None:
        assert planned == ["sistema_systemd"]
        assert "sustituto" in arms[0].label


@pytest.mark.engines
def test_lxd_arms_measure_and_leave_nothing(results_tmp):
    require_lxd()
    cfg = exp.config(
        tipos=["aplicacion", "sistema_lxd", "anidado_lxd"],
        repeticiones=2,
        instancias=1,
        calentamiento=0,
        memoria_mb=32,
    )
    resultado = exp.run(cfg, log=lambda line: None, root=results_tmp)
    df = resultado.df
    assert resultado.meta["status"] == "complete"
    have = set(zip(df["metric"], df["variant"]))
    for metric in (exp.ARRANQUE, exp.DISCO, exp.GZIP, exp.PSS, "lxd_crear", "lxd_systemd"):
        assert (metric, "sistema_lxd") in have, metric
    assert ("memoria_pss_daemon", "sistema_lxd") in have
    monitor = df[(df["metric"] == "memoria_pss_monitor") & (df["variant"] == "sistema_lxd")]["value"]
    assert (monitor > 1).all()  # the [lxc monitor] of each instance is found and counted
    assert ("run_motor", "anidado_lxd") in have and ("run_motor", "anfitrion") in have
    pss = df[(df["metric"] == exp.PSS) & (df["variant"] == "sistema_lxd")]["value"]
    assert (pss > 1).all()  # systemd and its services, plus the [lxc monitor]
    disk = df[(df["metric"] == exp.DISCO) & (df["variant"] == "sistema_lxd")]["value"]
    assert (disk > 50).all()  # the dir pool: a full copy of the image
    assert resultado.meta["nested"]["privileged"] is False
    assert resultado.meta["nested"]["uid_map"][:1] == ["0"] and resultado.meta["nested"]["uid_map"][1] != "0"
    keys = {c.key: c for c in exp.claims(df, resultado.meta)}
    assert keys["sistema_sin_penalizacion"].status in STATUSES
    assert keys["anidado_17"].status == "no_comparable" and keys["anidado_17"].detail
    assert not [
        n
        for n, labels in lxd.course_instances()
        if labels.get("curso-contenedores.run") == resultado.meta["run_id"]
    ]
