"""The `make bench-*` targets: scripts that print figures (not tests that assert a time).

harness: this course's timer against hyperfine; escala: reading memory directly against `stats`;
anatomia: the phases of a launch against hyperfine; llamadas: the system-call probe run by hand;
http: the HTTP server under wrk, against the seed's figures. Each runs with `python -m helpers.bench.<name>`.
"""
