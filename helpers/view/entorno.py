"""Notebook 00: print the environment report, one line per item."""

from __future__ import annotations

from .. import environment, system


def informe() -> list[environment.Check]:
    checks = environment.all_checks()
    host = system.host_metadata()
    print(
        f"Máquina: {host['cpu_model']}, {host['cpu_cores']} núcleos, "
        f"{host['memory_total_bytes'] / 2**30:.1f} GiB, {host['os']}, kernel {host['kernel']}"
    )
    print(host["virtualization"]["descripcion"])
    print()
    for check in checks:
        print(check.line())
    missing = [c for c in checks if not c.ok]
    print()
    if missing:
        print(
            f"{missing_sentence(len(missing))} El curso funciona igual con lo que hay: donde falte un motor, "
            "verás bare metal y los datos de referencia."
        )
    else:
        print("Todo listo: puedes pasar al cuaderno 01.")
    print()
    partes()
    return checks


def missing_sentence(n: int) -> str:
    """«Falta 1 cosa.» / «Faltan 3 cosas.» (the guest's notebook 00 said «Faltan 1 cosas»)."""
    return "Falta 1 cosa." if n == 1 else f"Faltan {n} cosas."


def partes() -> list[environment.Part]:
    """Which parts of the course this user gets and, for the others, what an administrator should run."""
    parts = environment.course_parts()
    who = "root" if system.is_root() else f"«{system.user_name()}», sin root"
    print(f"Qué partes del curso tienes como {who}:")
    for part in parts:
        mark = "[ OK ]" if part.ok else "[NO]  "
        print(f"{mark} {part.part}: {part.detail}")
    commands = environment.admin_commands(parts)
    if commands:
        print()
        print("Lo que falta lo puede dar un administrador de la máquina con:")
        for command in commands:
            print(f"    {command}")
        print("Después, vuelve a ejecutar «make setup» con tu usuario y este cuaderno.")
    return parts
