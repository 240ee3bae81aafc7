"""One module per experiment: Config -> run() -> tidy DataFrame; summarize(); compare(); claims()."""
