"""The `make bench-*` targets: each compares an experiment's figure with a second path that shares no
measuring code with it, prints both with their ratio and exits non-zero outside a stated tolerance
(common.py: the comparison and the exit code). Scripts that print figures, never tests.

harness: the course's timer against hyperfine -N; escala: memory read from the cgroup files against
`stats`; anatomia: rungs of the ladder against hyperfine -N; llamadas: the system-call probe started by
hand; http: the HTTP arms under wrk typed by hand. Each runs with `python -m helpers.bench.<name>`.
"""
