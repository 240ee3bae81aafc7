"""Errors whose message is meant for a student, in Spanish."""


class ErrorDelCurso(Exception):
    """Base class: the message is a complete Spanish sentence for the user."""


class ParametroInvalido(ErrorDelCurso, ValueError):
    """A parameter is wrong; raised before anything is launched."""


class MotorNoDisponible(ErrorDelCurso, RuntimeError):
    """An engine cannot be used on this machine."""


class ComandoFallido(ErrorDelCurso, RuntimeError):
    """A measured command exited with an error."""
