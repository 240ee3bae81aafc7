"""What a hand-in says, neutralised before anything reads it: a hand-in is untrusted input.

A student's folder or zip names the machine, and its meta.json and raw.csv carry text that the page
shows (host, CPU, versions, arms, reasons) and values it computes with. Here:

- `machine_name`: the folder's, zip's or host's name, kept to letters, digits and «@ . , _ - ( )» (anything
  else becomes «_»), at most NAME_LENGTH characters: no HTML, no Markdown, no matplotlib «$…$».
- `text`: free text (a CPU model, a version, a reason), with the characters that could start HTML, a
  Markdown link or matplotlib's mathtext (`< > & " ' ` $ \\ [ ]`) and control characters replaced by
  «·», at most TEXT_LENGTH characters (what Markdown would read as emphasis, the page escapes).
- `meta`: meta.json as the comparison reads it: only the fields it uses, each of the type it expects
  (a host that is not an object is no host), its text neutralised, and never the demonstration flag
  (only the class folder's DEMO.txt makes a class a demonstration one).
- `rows`: raw.csv's rows with a finite value, a whole round number, a time that is not negative and arm
  names of plain characters (FIELD); the others are counted, by reason, for a Spanish sentence.

The page escapes everything again when it writes it (helpers/view/clase.py).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .. import results

NAME_LENGTH = 60
TEXT_LENGTH = 160
NAME_CHARS = re.compile(r"[^\w@.,()\- ]", re.UNICODE)
MARKUP = re.compile(r"[<>&\"'`$\\\[\]]|[\x00-\x1f\x7f]")
FIELD = re.compile(r"[\w.:=@+\-/% ]{0,120}", re.UNICODE)  # an arm, a metric, a unit, an image
TIME_UNITS = ("ns", "us", "µs", "ms", "s")
TEXT_FIELDS = ("experiment", "engine", "image", "variant", "metric", "unit")


def machine_name(name: str) -> str:
    """A machine's name as the page may show it (see the module docstring); «máquina» if nothing is
    left."""
    clean = NAME_CHARS.sub("_", str(name)).strip(" .")[:NAME_LENGTH].strip()
    return clean or "máquina"


def text(value) -> str:
    """Free text from a hand-in, with nothing that could start markup (see the module docstring)."""
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    return MARKUP.sub("·", str(value))[:TEXT_LENGTH]


def _facts(value) -> dict:
    """A flat object of short facts (host, an engine's versions): text or finite numbers only."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for key, v in value.items():
        if isinstance(v, bool) or (isinstance(v, int | float) and math.isfinite(v)):
            out[text(key)] = v
        elif isinstance(v, str):
            out[text(key)] = text(v)
        elif isinstance(v, dict):
            out[text(key)] = {text(k): text(x) if isinstance(x, str) else x for k, x in v.items()}
    return out


def _images(value) -> dict:
    """meta["images"]: engine → role → {"name": …}, what results.add_roles reads; anything else left out."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for engine, roles in value.items():
        if not isinstance(roles, dict):
            continue
        kept = {}
        for role, info in roles.items():
            name = info.get("name") if isinstance(info, dict) else None
            if isinstance(name, str) and FIELD.fullmatch(str(role)) and FIELD.fullmatch(name):
                kept[str(role)] = {**info, "name": name}
        out[str(engine)] = kept
    return out


def meta(raw: dict) -> dict:
    """meta.json as the class comparison reads it (see the module docstring)."""
    out = dict(raw)
    out.pop("demo", None)
    for key in ("experiment", "run_id", "status", "reason", "started"):
        if key in out:
            out[key] = text(out[key]) if out[key] is not None else None
    out["host"] = _facts(raw.get("host"))
    engines = raw.get("engines")
    out["engines"] = {text(k): _facts(v) for k, v in engines.items()} if isinstance(engines, dict) else {}
    out["images"] = _images(raw.get("images"))
    out["emulada"] = raw.get("emulada") is True
    loops = raw.get(results.SELF_LOADED)
    out[results.SELF_LOADED] = [str(x) for x in loops] if isinstance(loops, list) else []
    out.pop(results.ROUND_LOADS, None)  # the load of each round comes from raw.csv's own rows
    return out


REASONS = {
    "valor": "su valor no es un número finito (texto, inf o vacío)",
    "ronda": "su ronda no es un número entero",
    "negativo": "es un tiempo negativo",
    "texto": "su motor, imagen, variante, métrica o unidad falta o lleva caracteres no permitidos",
}


def rows(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The rows a comparison may use, and how many were left out by reason (REASONS' keys)."""
    df = df.copy()
    for col in TEXT_FIELDS:
        df[col] = df[col].fillna("").astype(str)
    value = pd.to_numeric(df["value"], errors="coerce")
    rep = pd.to_numeric(df["rep"], errors="coerce")
    bad_text = (df["engine"] == "").to_numpy() | (df["metric"] == "").to_numpy()
    for col in TEXT_FIELDS:
        bad_text |= ~df[col].map(lambda v: bool(FIELD.fullmatch(v))).to_numpy(dtype=bool)
    bad_value = ~np.isfinite(value.to_numpy(dtype=float))
    rep_arr = rep.to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        bad_rep = ~np.isfinite(rep_arr) | (rep_arr != np.round(rep_arr))
    negative = df["unit"].isin(TIME_UNITS).to_numpy() & (value.to_numpy(dtype=float) < 0)
    dropped = {
        "texto": int(bad_text.sum()),
        "valor": int((bad_value & ~bad_text).sum()),
        "ronda": int((bad_rep & ~bad_value & ~bad_text).sum()),
        "negativo": int((negative & ~bad_rep & ~bad_value & ~bad_text).sum()),
    }
    keep = ~(bad_text | bad_value | bad_rep | negative)
    df["value"] = value
    df["rep"] = rep
    out = df[keep].copy()
    out["rep"] = out["rep"].astype(int)
    return out.reset_index(drop=True), {k: v for k, v in dropped.items() if v}


def dropped_sentence(dropped: dict[str, int]) -> str:
    """«se descartaron 3 filas: 2 porque su valor no es un número finito…; 1 porque…»."""
    total = sum(dropped.values())
    parts = [f"{n} porque {REASONS[k]}" for k, n in dropped.items()]
    noun = "fila" if total == 1 else "filas"
    return f"se usó la corrida, pero se descartaron {total} {noun}: " + "; ".join(parts) + "."
