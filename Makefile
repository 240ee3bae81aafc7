# Curso «Contenedores: LAUNCH vs RUNNING». Every target sets up what it needs by itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.instalado
export PYTHONUNBUFFERED := 1

.PHONY: setup python motores probes course census clean-sinroot pack test test-sinroot test-huesped lint lab bench-harness bench-escala bench-anatomia bench-llamadas bench-http clean

setup: python motores

python: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

# Engines, images, Podman workaround and probes (python -m helpers.provision). It also builds a
# single-node Kubernetes from its sources (15-40 min, once; notebooks 04 and 06): KUBERNETES=0 leaves it out.
motores: $(STAMP)
	CURSO_KUBERNETES=$(KUBERNETES) $(BIN)/python -m helpers.provision

probes:
	$(MAKE) -s -C probes

# SINROOT=1: the course as a student without root sees it (needs root: it runs as the unprivileged user
# curso-sinroot, created once and kept warm); its pages go to build/sinroot/html/. make clean-sinroot
# removes that user.
course: setup
ifdef SINROOT
	$(BIN)/python -m helpers.course.sinroot $(if $(RAPIDO),--rapido) $(if $(PARAMS),--parametros '$(PARAMS)')
else
	$(BIN)/python -m helpers.course $(if $(RAPIDO),--rapido) $(if $(PARAMS),--parametros '$(PARAMS)')
endif

# The census of verdicts: each experiment's claims per status, from the run its page reads (the latest
# complete one). JSON=1: the same counts as JSON.
census: python
	$(BIN)/python -m helpers.census $(if $(JSON),--json)

clean-sinroot: python
	$(BIN)/python -m helpers.course.sinroot --borrar

# Zip this machine's latest results with their metadata, to hand in (build/entregas/).
pack: python
	$(BIN)/python -m helpers.clase empaquetar

test: setup lint
	$(BIN)/python -m pytest -ra $(PYTEST_ARGS)

# Only the tests of a student without root (tests/course/test_sinroot.py, also part of `make test`): the
# user curso-sinroot runs `make course RAPIDO=1` on a copy of this checkout (needs root).
test-sinroot: setup
	$(BIN)/python -m pytest -ra -m sinroot $(PYTEST_ARGS)

# The students' usual host (issue 24): a Debian 13 VM with cgroup v2, Docker 26 and Podman 5 (QEMU, no
# network) runs notebook 00 and the quick profile of the first class (02 and 03 as root; 01, 02 and 03 as a
# student without root).
# Built once into ~/.cache/curso-contenedores/huesped; needs root. `make test` runs these tests too: the
# guest starts in the background when the session begins (tests/conftest.py) and they judge it last.
test-huesped: setup
	$(BIN)/python -m pytest -ra tests/guest $(PYTEST_ARGS)

# Ruff: lint and format check (line length 110, pyproject.toml).
lint: python
	$(BIN)/ruff check helpers tests
	$(BIN)/ruff format --check helpers tests

lab: setup
	$(BIN)/jupyter lab --ip 127.0.0.1 --notebook-dir notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# Benchmarks: each compares an experiment's figure with a path that shares no measuring code with it,
# prints both with their ratio, and exits 1 outside its stated tolerance (2: a comparison not made).
# `setup` installs what they need (hyperfine, wrk, the engines); a missing tool is installed on the spot.

# The course's timer: a bare `true` within 0.1 ms of hyperfine -N, `docker run` within ±10 %.
bench-harness: setup
	$(BIN)/python -m helpers.bench.harness

# Experiment 2: each idle container's memory read from its cgroup files vs `docker/podman stats` (±5 %).
bench-escala: setup
	$(BIN)/python -m helpers.bench.escala

# Experiment 4: rungs of the ladder (process, unshare, runc run, docker/podman run) vs hyperfine -N.
bench-anatomia: setup
	$(BIN)/python -m helpers.bench.anatomia

# Experiment 5: getpid per arm measured by the experiment (exec) vs the probe started by hand (run --rm).
bench-llamadas: setup
	$(BIN)/python -m helpers.bench.llamadas

# Network experiment: the experiment's req/s vs wrk typed by hand, on the same arms (native, -p, host).
bench-http: setup
	$(BIN)/python -m helpers.bench.http

clean:
	rm -rf build probes/bin
