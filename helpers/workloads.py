"""The shell commands of the CPU, file and disk workloads the course times (experiments 3 and 7).

POSIX sh, so dash, bash and busybox all run them: the same line runs on the host, in a chroot into an
exported image and inside a container. `directory` is where a workload writes; `size_mb` the megabytes
hashed or written; `files` how many small files are created; `target` and `target_bytes` the existing
file `copia` modifies (and its size).
"""

from __future__ import annotations

SCRIPTS = ("hash", "sort", "archivos", "escritura", "copia")
COPY_NAME = "curso-copia.bin"  # the file `copia` modifies where the image's file is not at hand


def script(
    workload: str,
    *,
    directory: str = "/tmp",
    size_mb: int = 100,
    files: int = 2000,
    target: str = "",
    target_bytes: int = 0,
) -> str:
    """The shell command of a workload (KeyError for an unknown one).

    copia: read `target` (so the page cache holds it the same way on every arm), then append one byte
    at its end and fsync it. On a container's writable layer, a `target` that comes from the image is
    first copied whole to the upper layer (overlay's copy-up); elsewhere only the byte is written."""
    if workload == "hash":
        return f"dd if=/dev/urandom bs=1M count={size_mb} 2>/dev/null | sha256sum > /dev/null"
    if workload == "sort":
        return "seq 1 1000000 | shuf | sort -n > /dev/null"
    if workload == "archivos":
        return (
            f'd={directory}/curso-archivos.$$; mkdir -p "$d"; i=0; '
            f'while [ $i -lt {files} ]; do echo $i > "$d/f$i"; i=$((i+1)); done; '
            'ls -ln "$d" > /dev/null; rm -r "$d"'
        )
    if workload == "escritura":
        return (
            f"dd if=/dev/zero of={directory}/curso-escritura.bin bs=1M count={size_mb} conv=fsync 2>/dev/null"
        )
    if workload == "copia":
        path = target or f"{directory}/{COPY_NAME}"
        return (
            f"cat {path} > /dev/null && "
            f"printf x | dd of={path} bs=1 seek={int(target_bytes)} conv=notrunc,fsync 2>/dev/null"
        )
    raise KeyError(workload)
