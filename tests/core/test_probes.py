"""helpers.probes: reading the report line of the `cronometro` probe."""

from __future__ import annotations

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
