"""Class-wide comparison: many students' result folders (or zip files of them), side by side.

    class_runs = recolectar("entregas/")      # what was read, what was skipped and why
    ratios_vs_bare(class_runs.data)           # x bare metal, per machine, with IC 95 %
    podman_over_docker(class_runs.data)       # Podman/Docker per machine
    spread(frame)                             # spread of a ratio across machines
    against_reference(class_runs)             # each machine against the bundled reference

Names are English except the functions notebooks and `make pack` call (recolectar, carpeta_de_clase,
empaquetar, demo).

A student's folder holds run folders (`<experiment>/<run>/raw.csv + meta.json`) at any depth; a zip
holds the same. Everything else (foreign files, broken runs, runs without rows) is skipped with a
Spanish reason. Per machine and experiment the latest complete run is used; a machine with only an
interrupted run is used with what it measured, marked «parcial».

`empaquetar()` (and `make pack`) zips the student's own latest runs with their metadata.
`demo()` writes a demonstration class generated from the reference data, clearly labelled as such.
This package never imports matplotlib or ipywidgets (see helpers.view.clase).

    runs         MachineRun, Skipped, ClassRuns: what a comparison reads
    collect      reading a class folder (folders, zips, zips inside folders) and picking the latest runs
    untrusted    what a hand-in says, neutralised before anything reads it (a hand-in is untrusted input)
    compare      ratios per machine, their spread, each machine against the reference
    rule         the class rule: the typical machine and the machines apart, by the one verdict rule
    deferred     the claims other notebooks leave to the class (05 across CPUs, 08 with KVM), by that rule
    power        the rule's error and power by seeded simulation, and the machines a claim needs
    handin       the student's zip (make pack)
    demo_class   the demonstration class built from the reference data
    cli          python -m helpers.clase empaquetar | demo
"""

from . import compare, deferred, power, rule, runs, untrusted
from .collect import recolectar
from .compare import (
    EMULATED_VERDICT,
    TIME_UNITS,
    against_reference,
    comparable,
    medianas,
    only_comparable,
    podman_over_docker,
    ratios_vs_bare,
    reference_ratios,
    spread,
    with_reference,
)
from .demo_class import DEMO_LABEL, carpeta_de_clase, demo
from .handin import empaquetar
from .runs import KEY, MANIFEST, PAIR_KEY, REFERENCE_MACHINE, ClassRuns, MachineRun, Skipped

__all__ = [
    "DEMO_LABEL",
    "EMULATED_VERDICT",
    "KEY",
    "MANIFEST",
    "PAIR_KEY",
    "REFERENCE_MACHINE",
    "TIME_UNITS",
    "ClassRuns",
    "MachineRun",
    "Skipped",
    "against_reference",
    "carpeta_de_clase",
    "comparable",
    "compare",
    "deferred",
    "power",
    "rule",
    "runs",
    "untrusted",
    "demo",
    "empaquetar",
    "medianas",
    "only_comparable",
    "podman_over_docker",
    "ratios_vs_bare",
    "reference_ratios",
    "recolectar",
    "spread",
    "with_reference",
]
