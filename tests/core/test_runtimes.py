"""OCI runtimes beyond the engines' default (helpers/engines/runtimes.py): building gVisor's runsc."""

from __future__ import annotations

from helpers.engines import runtimes


def test_runsc_flags_and_go_versions_are_parsed():
    flags = (
        "  -platform string\n    \tspecifies which platform to use: systrap (default), ptrace, kvm. "
        '(default "systrap")\n  -platform_device_path string\n'
    )
    assert runtimes.parse_default_platform(flags) == "systrap"
    assert runtimes.parse_default_platform("nada") is None
    assert runtimes.parse_go_version("go version go1.19.8 linux/amd64") == (1, 19, 8)
    assert runtimes.parse_go_version("go version go1.26 linux/amd64") == (1, 26, 0)
    assert runtimes.parse_go_version("") is None


def test_old_go_gets_the_toolchain_from_the_proxy(monkeypatch, tmp_path):
    fake = tmp_path / "go"
    fake.write_text("#!/bin/sh\necho go version go1.22.1 linux/amd64\n")
    fake.chmod(0o755)
    monkeypatch.setattr(runtimes, "_go_candidates", lambda: [fake])
    go, env = runtimes.choose_go(lambda _: None)
    assert go == fake and env == {"GOTOOLCHAIN": "go" + ".".join(map(str, runtimes.GO_REQUIRED))}
    fake.write_text("#!/bin/sh\necho go version go1.19.8 linux/amd64\n")
    fetched = tmp_path / "toolchain" / "bin" / "go"
    monkeypatch.setattr(runtimes, "fetch_toolchain", lambda log: fetched)
    assert runtimes.choose_go(lambda _: None) == (fetched, {"GOTOOLCHAIN": "local"})
    monkeypatch.setattr(runtimes, "fetch_toolchain", lambda log: None)
    assert runtimes.choose_go(lambda _: None) is None


def test_build_runsc_reports_in_spanish_without_raising_when_no_go(monkeypatch, tmp_path):
    monkeypatch.setattr(runtimes, "BIN_DIR", tmp_path)
    monkeypatch.setattr(runtimes, "RUNSC", tmp_path / "runsc")
    monkeypatch.setattr(runtimes, "RUNSC_STAMP", tmp_path / "runsc.version")
    monkeypatch.setattr(runtimes, "choose_go", lambda log: None)
    ok, message = runtimes.build_runsc(lambda _: None)
    assert not ok and "gVisor" in message
