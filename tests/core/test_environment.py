from helpers import environment, system


def test_probe_check_reports_missing_and_built_binaries(tmp_path):
    (tmp_path / "uno.c").write_text("int main(void){return 0;}")
    (tmp_path / "dos.c").write_text("int main(void){return 0;}")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "uno").write_text("")
    (tmp_path / "Makefile").write_text("all:\n")
    checks = {c.item: c for c in environment.check_probes(tmp_path)}
    assert checks["sonda uno"].ok and checks["sonda uno"].line().startswith("[ OK ]")
    # not built yet: the first notebook that uses it builds it (nobody runs «make probes» by hand)
    line = checks["sonda dos"].line()
    assert checks["sonda dos"].ok and "sin compilar aún" in line and "la compila sola" in line
    assert "make probes" not in line


def test_a_probe_that_cannot_be_built_here_says_why_and_never_make_probes(tmp_path):
    (tmp_path / "dos.c").write_text("int main(void){return 0;}")  # no Makefile: it cannot be built
    (check,) = environment.check_probes(tmp_path)
    assert not check.ok and "no está probes/Makefile" in check.line() and "make probes" not in check.line()


def test_cgroup_version_detection(tmp_path):
    assert system.cgroup_version(tmp_path) == "desconocido"
    (tmp_path / "memory").mkdir()
    assert system.cgroup_version(tmp_path) == "v1"
    (tmp_path / "unified").mkdir()
    assert system.cgroup_version(tmp_path) == "v1 (híbrido)"
    (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    assert system.cgroup_version(tmp_path) == "v2"


def test_every_check_line_is_ok_or_missing():
    for check in environment.all_checks():
        assert check.line().startswith(("[ OK ]", "[FALTA]"))


def test_notebook_00_speaks_one_format_and_no_english():
    """00's lines: image sizes in MiB and IDs as 12 hex digits for both engines, LXD's version without
    `lxc version`'s English, and a root-only part read mid-sentence (lower case)."""
    from helpers.engines import lxd

    assert environment.short_id("sha256:3054d300fc6b0123456789") == "3054d300fc6b"
    assert environment.short_id("3d29838a5b8f2b9975d0aa") == "3d29838a5b8f"
    assert lxd.parse_version("Client version: 5.0.2\nServer version: 5.0.2\n") == "5.0.2"
    assert lxd.parse_version("Client version: 5.0.2\nServer version: 5.21\n") == "5.21 (cliente 5.0.2)"
    for part in environment.root_only_parts():
        what = part.part.split(": ", 1)[1]
        assert what[:1] == what[:1].lower(), part.part


def test_an_emulated_vm_says_why_without_calling_dev_kvm_the_cause(monkeypatch):
    """«será emulada (TCG), porque /dev/kvm existe, pero…» gave the wrong cause: the reason follows a colon."""
    monkeypatch.setattr(environment.vm, "availability", lambda: (True, ""))
    reason = "/dev/kvm existe, pero un huésped no arranca con KVM en 20 s."
    monkeypatch.setattr(environment.vm, "kvm_status", lambda: (False, reason))
    line = environment.check_vm()[0]
    text = " ".join(str(v) for v in vars(line).values())
    assert f"será emulada (TCG): {reason}" in text and "porque" not in text, text
