"""An explanation as text for people: a summary, then every step, numbered and grouped.

Consecutive steps of one kind form a group under a heading ("singles", "X-wing", ...), so
the long runs of singles read as one stretch and the harder steps stand out. With
`candidates=True` the pencil-mark grid is shown before every group that is not singles
(the marks a reader needs to check the step).
"""

from __future__ import annotations

from itertools import groupby

from solver.logic.explain import Explanation

SINGLES = {"full house", "naked single", "hidden single"}


def _family(technique: str) -> str:
    return "singles" if technique in SINGLES else technique


def summary(explanation: Explanation) -> str:
    """The grade, and whether logic alone solved it (or how far it got, with the grid
    where it stopped)."""
    g = explanation.grade
    grade = (
        f"grade: {g.level} (ER {g.rating}; score {g.score}; hardest technique: "
        f"{g.hardest or 'none'})"
    )
    if explanation.solved_by_logic:
        logic = f"solved by logic alone in {len(explanation.steps)} steps"
    else:
        logic = (
            f"logic alone is not enough: it filled {explanation.logic_filled} of "
            f"{explanation.empty_at_start} empty cells before the first guess; "
            f"{explanation.guesses} marked guess(es) in {len(explanation.steps)} steps\n"
            f"where logic stopped: {explanation.to_json()['logic_progress']['grid']}"
        )
    if not explanation.unique:
        logic += " (the puzzle has several solutions: uniqueness techniques were not used)"
    return f"{grade}\n{logic}"


def format_explanation(explanation: Explanation, *, candidates: bool = False) -> str:
    """Summary, then the numbered steps in groups (and the pencil marks if asked; this
    needs an explanation made with keep_snapshots=True)."""
    lines = [summary(explanation)]
    width = len(str(len(explanation.steps)))
    numbered = list(enumerate(explanation.steps, start=1))
    for family, group in groupby(numbered, key=lambda item: _family(item[1].technique)):
        group = list(group)
        first, last = group[0][0], group[-1][0]
        span = f"step {first}" if first == last else f"steps {first}-{last}"
        lines.append("")
        lines.append(f"{span}: {family}")
        if candidates and family != "singles" and explanation.snapshots:
            grid = explanation.snapshots[first - 1].format()
            lines.extend(("    " + row).rstrip() for row in grid.splitlines())
            lines.append("")
        for number, step in group:
            mark = "  [guess]" if step.technique == "guess" else ""
            lines.append(f"  {number:>{width}}. {step.text}{mark}")
    return "\n".join(lines)


def format_all_steps(steps) -> str:
    """Every available step grouped by technique, easiest first, like HoDoKu's "all
    steps" panel: a heading with the count, then one line per step."""
    groups: dict[str, list] = {}
    for step in steps:
        groups.setdefault(step.technique, []).append(step)
    if not groups:
        return "no technique applies"
    lines = []
    for technique, group in groups.items():
        if lines:
            lines.append("")
        lines.append(f"{technique} ({len(group)})")
        lines.extend(f"  - {step.text}" for step in group)
    return "\n".join(lines)
