"""Bounded forcing chains: the last logical resort before a guess.

Suppose a candidate is true and follow the consequences with singles only (naked and
hidden singles, a bounded number of rounds):

- contradiction: if supposing "r1c1 is 5" empties a cell or a unit, r1c1 is not 5;
- cell forcing: if every candidate of a cell leads to the same placement, it holds;
- unit forcing: if every place for a digit in a unit leads to the same placement, it holds.

Each round applies all singles of the grid together, so strictly these are small forcing
*nets*; the bound (rounds and branch width) keeps the search short enough for a person to
follow the first few links, which the step's text lists. Works on every geometry.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from solver.logic.candidates import Candidates
from solver.logic.step import Step, cell_list

MAX_ROUNDS = 24
MAX_WIDTH = 3
SHOWN_LINKS = 6


def propagate(
    grid: Candidates, rounds: int = MAX_ROUNDS
) -> tuple[list[tuple[int, int]], str | None]:
    """Apply naked and hidden singles to `grid` (in place) until none is left, the grid
    breaks, or `rounds` run out. Returns the placements made, in order, and the reason
    the grid broke (None when it did not). (Adding locked candidates to the branches
    solved no more of top1465 or hardest1106 in our samples and doubled the cost.)"""
    trail: list[tuple[int, int]] = []
    cells = grid.layout.unit_cells
    size = grid.geometry.size
    for _ in range(rounds):
        counts = grid.marks.sum(axis=1)
        places = grid.marks[cells]
        per_digit = places.sum(axis=1)
        filled = (grid.values[cells] != 0).sum(axis=1)
        if ((counts == 0) & (grid.values == 0)).any() or (
            filled + (per_digit > 0).sum(axis=1) < size
        ).any():
            return trail, grid.contradiction()
        found: dict[int, int] = {}
        for cell in np.flatnonzero(counts == 1).tolist():
            found[cell] = int(np.argmax(grid.marks[cell])) + 1
        units, digits = np.nonzero(per_digit == 1)
        for u, d in zip(units.tolist(), digits.tolist(), strict=True):
            cell = int(cells[u][places[u, :, d]][0])
            if found.setdefault(cell, d + 1) != d + 1:
                return trail, f"{grid.name(cell)} would need two digits"
        if not found:
            return trail, None
        for cell, digit in found.items():
            if not grid.marks[cell, digit - 1]:
                return trail, f"{grid.name(cell)} would need {grid.symbol(digit)} twice in a unit"
            grid.place(cell, digit)
            trail.append((cell, digit))
    return trail, grid.contradiction()


def _suppose(grid: Candidates, cell: int, digit: int, true: bool = True):
    """The branch that supposes (cell, digit) true (or false), singles followed:
    (branch, trail, why it broke or None)."""
    branch = grid.copy()
    if true:
        branch.place(cell, digit)
    else:
        branch.eliminate(cell, digit)
    trail, broken = propagate(branch)
    return branch, [(cell, digit)] + trail if true else trail, broken


def _trail_text(grid: Candidates, trail) -> str:
    shown = [f"{grid.name(c)}={grid.symbol(d)}" for c, d in trail[:SHOWN_LINKS]]
    more = f" … ({len(trail) - SHOWN_LINKS} more)" if len(trail) > SHOWN_LINKS else ""
    return " → ".join(shown) + more


def _contradiction_step(
    grid, cell, digit, trail, broken, technique="forcing chain", true=True
) -> Step:
    """Supposing (cell, digit) true (false) breaks the grid: so it is false (true)."""
    return Step(
        f"{technique} (contradiction)",
        f"suppose {_supposition(grid, cell, digit, true)}: singles then give "
        f"{_trail_text(grid, trail) or 'nothing'}, and {broken}; so "
        f"{_supposition(grid, cell, digit, not true)}",
        placements=() if true else ((cell, digit),),
        eliminations=((cell, digit),) if true else (),
        cells=(cell,),
        digits=(digit,),
    )


def _supposition(grid: Candidates, cell: int, digit: int, true: bool) -> str:
    return f"{grid.name(cell)} is {'' if true else 'not '}{grid.symbol(digit)}"


def _common_placement(grid: Candidates, branches) -> tuple[int, int] | None:
    """A placement every branch makes that the grid does not have yet."""
    first = branches[0]
    agreed = (grid.values == 0) & (first.values != 0)
    for branch in branches[1:]:
        agreed &= branch.values == first.values
    hits = np.flatnonzero(agreed)
    if not hits.size:
        return None
    cell = int(hits[0])
    return cell, int(first.values[cell])


def _forcing_step(grid, kind, subject, options, branches, trails) -> Step | None:
    common = _common_placement(grid, branches)
    if common is None:
        return None
    cell, digit = common
    sym = grid.symbol(digit)
    cases = "; ".join(
        f"if {grid.name(c)}={grid.symbol(d)}: {_trail_text(grid, t[: t.index((cell, digit)) + 1])}"
        for (c, d), t in zip(options, trails, strict=True)
    )
    return Step(
        f"forcing chain ({kind})",
        f"{subject}; every case leads to {grid.name(cell)}={sym} ({cases}); so "
        f"{grid.name(cell)} must be {sym}",
        placements=((cell, digit),),
        cells=tuple(c for c, _ in options) + (cell,),
        digits=(digit,),
    )


def _alternatives(grid: Candidates, width: int) -> Iterator[tuple[str, str, list]]:
    """Sets of `width` candidates of which exactly one is true: the candidates of a
    cell, and the places of a digit in a unit. Yields (kind, sentence, candidates)."""
    for cell in np.flatnonzero(grid.marks.sum(axis=1) == width).tolist():
        options = [(cell, d) for d in grid.digits_of(cell)]
        digits = ", ".join(grid.symbol(d) for _, d in options)
        yield "cell", f"{grid.name(cell)} is one of {digits}", options
    cells = grid.layout.unit_cells
    places = grid.marks[cells]
    units, digits = np.nonzero(places.sum(axis=1) == width)
    for u, d in zip(units.tolist(), digits.tolist(), strict=True):
        spots = [int(c) for c in cells[u][places[u, :, d]]]
        subject = f"{grid.unit_name(u)} puts {grid.symbol(d + 1)} in {cell_list(grid, spots)}"
        yield "unit", subject, [(c, d + 1) for c in spots]


def _consequence(grid: Candidates, kind: str, subject: str, options) -> Step | None:
    """Suppose each alternative in turn: a contradiction removes it; a placement that
    every alternative leads to is made."""
    results = [_suppose(grid, c, d) for c, d in options]
    for (c, d), (_, trail, broken) in zip(options, results, strict=True):
        if broken:
            return _contradiction_step(grid, c, d, trail, broken)
    branches = [branch for branch, _, _ in results]
    trails = [trail for _, trail, _ in results]
    return _forcing_step(grid, kind, subject, options, branches, trails)


def forcing_chains(grid: Candidates) -> Iterator[Step]:
    """Every alternative of two, then three candidates, each supposed in turn (lazily:
    `explain` and `hint` take the first step)."""
    for width in range(2, MAX_WIDTH + 1):
        for kind, subject, options in _alternatives(grid, width):
            step = _consequence(grid, kind, subject, options)
            if step is not None:
                yield step


# -- forcing nets ------------------------------------------------------------------------
#
# Forcing chains above suppose the candidates of narrow cells and units true. Forcing nets
# suppose every candidate both true and false, and read more off the consequences: a
# supposition that breaks the grid is wrong either way round, and whatever every case of a
# cell, of a unit's places for a digit, or of a candidate being true or false leads to
# holds, eliminations as well as placements (HoDoKu's forcing nets, contradiction and
# verity). The consequences are the singles that follow, each from all that came before:
# a net, not a chain.


def _outcomes(grid: Candidates, branch: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """(true, false): [cell, digit - 1] candidates of `grid` a branch makes true (placed)
    and false (struck out, or its cell given another digit)."""
    size = grid.geometry.size
    placed = branch.values[:, None] == np.arange(1, size + 1)[None, :]
    open_ = (grid.values == 0)[:, None]
    return placed & open_, grid.marks & ~branch.marks & ~placed


def _net_branch(grid: Candidates, cell: int, digit: int, true: bool):
    """`_suppose`'s branch as (trail, broken, outcomes)."""
    branch, trail, broken = _suppose(grid, cell, digit, true)
    return trail, broken, None if broken else _outcomes(grid, branch)


def _cause(grid: Candidates, trail, cell: int, digit: int, true: bool) -> list:
    """The trail up to the placement that settles (cell, digit): the digit itself, another
    digit in the cell, or the digit in a peer."""
    sees = grid.layout.sees
    for k, (c, d) in enumerate(trail):
        if (true and (c, d) == (cell, digit)) or (
            not true and ((c == cell and d != digit) or (d == digit and sees[c, cell]))
        ):
            return trail[: k + 1]
    return trail


def _change_list(grid: Candidates, changes) -> str:
    """Changes as text ("r1c1=5, r2c2≠3") from [((cell, digit), placed?), ...]."""
    return ", ".join(
        f"{grid.name(c)}{'=' if true else '≠'}{grid.symbol(d)}" for (c, d), true in changes
    )


def _common_step(grid, kind, subject, cases, branches) -> Step | None:
    """What every case (supposition, (trail, broken, outcomes)) leads to, as one step."""
    true = np.logical_and.reduce([b[2][0] for b in branches])
    false = np.logical_and.reduce([b[2][1] for b in branches])
    placements = [(int(c), int(d) + 1) for c, d in zip(*np.nonzero(true), strict=True)]
    eliminations = [(int(c), int(d) + 1) for c, d in zip(*np.nonzero(false), strict=True)]
    # a placement says its cell's other digits too
    eliminations = [(c, d) for c, d in eliminations if c not in dict(placements)]
    if not placements and not eliminations:
        return None
    # the first change, with each case's singles up to it; the others said after it
    changes = [(p, True) for p in placements] + [(e, False) for e in eliminations]
    (first, is_true), rest = changes[0], changes[1:]
    shown = "; ".join(
        f"if {text}: {_trail_text(grid, _cause(grid, b[0], *first, is_true)) or 'at once'}"
        for text, b in zip(cases, branches, strict=True)
    )
    likewise = f", and likewise to {_change_list(grid, rest)}" if rest else ""
    return Step(
        f"forcing net ({kind})",
        f"{subject}; every case leads to {_change_list(grid, [changes[0]])} ({shown})"
        f"{likewise}; so {'they hold' if rest else 'it holds'}",
        placements=tuple(placements),
        eliminations=tuple(eliminations),
        cells=tuple(dict.fromkeys(c for c, _ in placements + eliminations)),
        digits=tuple(sorted({d for _, d in placements + eliminations})),
    )


def forcing_nets(grid: Candidates) -> Iterator[Step]:
    """Contradictions first (a candidate supposed true, then false, breaking the grid),
    then what a candidate leads to whether true or false, then what every candidate of a
    cell, or every place of a digit in a unit, leads to."""
    candidates = [(int(c), int(d) + 1) for c, d in zip(*np.nonzero(grid.marks), strict=True)]
    branches: dict[tuple[int, int, bool], tuple] = {}
    for true in (True, False):
        for cell, digit in candidates:
            branches[cell, digit, true] = trail, broken, _ = _net_branch(grid, cell, digit, true)
            if broken:
                yield _contradiction_step(grid, cell, digit, trail, broken, "forcing net", true)
    for cell, digit in candidates:
        both = [branches[(cell, digit, True)], branches[(cell, digit, False)]]
        if any(broken for _, broken, _ in both):
            continue  # said above
        step = _common_step(
            grid,
            "either way",
            f"{grid.name(cell)} is {grid.symbol(digit)} or not",
            ["it is", "not"],
            both,
        )
        if step is not None:
            yield step
    for kind, subject, options in _every_alternative(grid):
        cases = [f"{grid.name(c)}={grid.symbol(d)}" for c, d in options]
        each = [branches[(c, d, True)] for c, d in options]
        if any(broken for _, broken, _ in each):
            continue
        step = _common_step(grid, kind, subject, cases, each)
        if step is not None:
            yield step


def _every_alternative(grid: Candidates) -> Iterator[tuple[str, str, list]]:
    """The candidates of every open cell, and the places of every digit in every unit
    (each a set of which exactly one is true), narrowest first."""
    for width in range(2, grid.geometry.size + 1):
        yield from _alternatives(grid, width)
