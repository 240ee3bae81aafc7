"""helpers.probes: reading the report line of the `cronometro` probe."""

from __future__ import annotations

import subprocess

import pytest

from helpers import probes
from helpers.errors import ComandoFallido


def test_parse_probe_reads_the_report_line():
    assert probes.parse_cronometro("cronometro ns=123456789 estado=0\n") == (123456789, 0)


def test_parse_probe_ignores_other_lines_and_keeps_the_last_report():
    text = "dd: aviso\ncronometro ns=5 estado=0\nalgo más\ncronometro ns=42 estado=3\n"
    assert probes.parse_cronometro(text) == (42, 3)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Error response from daemon: No such container: x",
        "cronometro ns=abc estado=0",
        "cronometro ns=12",
    ],
)
def test_parse_probe_without_a_report_raises_a_spanish_error(text):
    with pytest.raises(ComandoFallido, match="no informó el tiempo"):
        probes.parse_cronometro(text)


def test_parse_probe_reads_the_memory_cronometro_saw_with_pico():
    line = "cronometro ns=7 estado=0 pico_kb=8348 mmap_kb=8324 mmap_rss_kb=6452 heap_kb=-1\n"
    assert probes.parse_cronometro(line) == (7, 0)
    assert probes.parse_cronometro_peak(line) == {"pico_kb": 8348, "mmap_kb": 8324, "mmap_rss_kb": 6452}
    assert probes.parse_cronometro_peak("cronometro ns=7 estado=0\n") == {}


def test_cronometro_with_pico_sees_sorts_buffer_and_still_times_the_work():
    """The real probe on the real workload: it finds `sort` among its descendants and reads its memory
    (its peak and the anonymous mapping that held most of it), and reports the time as without --pico."""
    cronometro = probes.ensure("cronometro", log=lambda _: None)
    work = ["sh", "-c", "seq 1 1000000 | shuf | sort -n > /dev/null"]
    out = subprocess.run(
        [str(cronometro), "--pico", "sort", *work], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    ns, status = probes.parse_cronometro(out.stderr)
    seen = probes.parse_cronometro_peak(out.stderr)
    assert status == 0 and ns > 0 and set(seen) == set(probes.CRONOMETRO_PEAK)
    assert 1024 < seen["mmap_rss_kb"] <= seen["mmap_kb"] and seen["mmap_rss_kb"] <= seen["pico_kb"]
    none = subprocess.run([str(cronometro), "--pico", "nadie", "true"], capture_output=True, text=True)
    assert probes.parse_cronometro_peak(none.stderr) == {}  # nothing called «nadie» was ever seen


def test_parse_probe_reads_the_cpu_time_and_says_none_without_it():
    line = "cronometro ns=90 estado=0 cpu_ns=40000 pico_kb=8348 mmap_kb=8324 mmap_rss_kb=6452 heap_kb=-1\n"
    assert probes.parse_cronometro(line) == (90, 0)
    assert probes.parse_cronometro_cpu(line) == 40000
    assert probes.parse_cronometro_peak(line) == {"pico_kb": 8348, "mmap_kb": 8324, "mmap_rss_kb": 6452}
    assert probes.parse_cronometro_cpu("cronometro ns=7 estado=0\n") is None  # a probe built before it
    assert probes.parse_cronometro_cpu("cronometro ns=7 estado=0 cpu_ns=-1\n") is None
    with pytest.raises(ComandoFallido, match="no informó el tiempo"):
        probes.parse_cronometro_cpu("")


def test_cronometro_counts_the_cpu_of_every_descendant_and_not_the_time_they_slept():
    """The real probe: a shell pipeline that burns CPU in two children reports a share of CPU over elapsed
    time many times that of a command that sleeps (a ratio of two readings of the same run, whatever the
    machine's load)."""
    cronometro = probes.ensure("cronometro", log=lambda _: None)
    busy = ["sh", "-c", "dd if=/dev/urandom bs=1M count=16 2>/dev/null | sha256sum > /dev/null"]
    out = subprocess.run([str(cronometro), *busy], capture_output=True, text=True, timeout=120)
    ns, status = probes.parse_cronometro(out.stderr)
    cpu = probes.parse_cronometro_cpu(out.stderr)
    assert status == 0 and cpu is not None and cpu > 0  # dd and sha256sum, reaped by the shell
    idle = subprocess.run([str(cronometro), "sleep", "0.3"], capture_output=True, text=True, timeout=30)
    slept, _ = probes.parse_cronometro(idle.stderr)
    assert cpu / ns > 10 * probes.parse_cronometro_cpu(idle.stderr) / slept
