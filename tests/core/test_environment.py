from helpers import environment, system


def test_probe_check_reports_missing_and_built_binaries(tmp_path):
    (tmp_path / "uno.c").write_text("int main(void){return 0;}")
    (tmp_path / "dos.c").write_text("int main(void){return 0;}")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "uno").write_text("")
    checks = {c.item: c for c in environment.check_probes(tmp_path)}
    assert checks["sonda uno"].ok and not checks["sonda dos"].ok
    assert checks["sonda dos"].line().startswith("[FALTA]") and "make probes" in checks["sonda dos"].line()


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
