"""Errors whose message is meant for a student, in Spanish."""


class ErrorDelCurso(Exception):
    """Base class: the message is a complete Spanish sentence for the user. `detail` keeps the
    engine's own (usually English) words: it goes to meta.json and the run's log, not to the student."""

    def __init__(self, message: str = "", detail: str | None = None):
        super().__init__(message)
        self.detail = detail


ENGINE_ERRORS = (  # (fragment of an engine's message, what it means in Spanish)
    ("Cannot connect to the Docker daemon", "el daemon de Docker no responde"),
    ("connection refused", "el motor rechazó la conexión (¿se detuvo el daemon?)"),
    ("No such file or directory", "falta un archivo o un programa que el motor necesita"),
    ("No such image", "el motor no tiene esa imagen (ejecuta «make setup»)"),
    ("image not known", "el motor no tiene esa imagen (ejecuta «make setup»)"),
    ("Unable to find image", "el motor no tiene esa imagen y no puede descargarla (ejecuta «make setup»)"),
    ("permission denied", "el sistema negó el permiso (¿hace falta root o pertenecer al grupo docker?)"),
    ("operation not permitted", "el kernel no permitió la operación (faltan privilegios)"),
    ("No such container", "el contenedor ya no existe (¿lo borró otro proceso?)"),
    ("is already in use", "ya hay un contenedor con ese nombre"),
    ("address already in use", "el puerto ya está ocupado"),
    ("no space left on device", "no queda espacio en el disco"),
    ("OCI runtime", "el runtime OCI no pudo crear el contenedor"),
    ("timed out", "el motor no respondió a tiempo"),
)


def summarize_engine_error(text: str | None) -> str:
    """One Spanish phrase for an engine's error message (the original goes to the detail)."""
    low = (text or "").lower()
    for fragment, meaning in ENGINE_ERRORS:
        if fragment.lower() in low:
            return meaning
    return "el motor devolvió un error (el detalle en inglés quedó en meta.json)"


class ParametroInvalido(ErrorDelCurso, ValueError):
    """A parameter is wrong; raised before anything is launched."""


class ComandoFallido(ErrorDelCurso, RuntimeError):
    """A measured command exited with an error."""
