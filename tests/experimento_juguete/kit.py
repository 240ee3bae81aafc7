"""The toy's facts for the instructor's kit: `{{juguete.sh}}` in a worked answer."""

from __future__ import annotations

from helpers.course.facts.words import Facts, missing_arms, run_tag
from helpers.view import common

FACTS = ("sh",)


def facts(res) -> Facts:
    medians = res.df.groupby("variant")["value"].median()
    if not {"sh", "true"} <= set(medians.index):
        return {"sh": missing_arms("95_juguete", "`true` y `sh -c true`")}
    ratio = medians["sh"] / medians["true"]
    return {"sh": f"En la {run_tag(res)}, `sh -c true` / `true` = {common.fmt_ratio(ratio)} (medianas)."}
