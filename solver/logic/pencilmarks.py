"""A player's pencil marks as input: a HoDoKu library line or a forum candidate grid.

A stuck player often has pencil marks that differ from the "fully updated" ones a solver
would compute from the givens: they struck candidates by their own reasoning. These two
readers turn what they wrote into a `Candidates` state so `all_steps`, `hint` and
`explain` start from it.

- A HoDoKu library line (the format of HoDoKu's regression library and its clipboard):
  ``:<code>:<digits>:<givens>:<deleted>:<eliminations>:<placements>:<extra>``, where
  ``<givens>`` is 81 characters with ``+`` before a placed (not given) digit and
  ``<deleted>`` lists struck candidates as ``<digit><row><col>`` triples. Only the
  ``<givens>`` and ``<deleted>`` fields are needed: ``:0000::<givens>:<deleted>::``.
- A candidate grid as forum posts show it: every cell one whitespace-separated token, a
  run of candidate digits; ``|``, ``-``, ``+``, ``*`` and ``.`` framing is ignored. A
  one-digit token is a solved cell (forum grids do not tell givens from placed digits,
  so they count as givens).

Both give 9x9 states (HoDoKu's format and the forum grids are 9x9 only).

>>> grid = read_pencilmarks(":0000::1" + "." * 80 + ":219 319::")
>>> grid.digits_of(grid.geometry.cell_at[(0, 8)])
[4, 5, 6, 7, 8, 9]
>>> bool(grid.given[0])
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from solver.geometry import standard
from solver.logic.candidates import Candidates

GEOMETRY = standard(3)


def _triples(text: str) -> list[tuple[int, int]]:
    """ "219 346" -> [(cell, digit), ...] for <digit><row><col> triples."""
    found = []
    for token in text.split():
        if not re.fullmatch(r"[1-9]{3}", token):
            raise ValueError(f"not a <digit><row><col> triple: {token!r}")
        digit, row, col = (int(ch) for ch in token)
        found.append((GEOMETRY.cell_at[(row - 1, col - 1)], digit))
    return found


def _from_givens(givens: str) -> Candidates:
    """The state after the givens (and '+'-marked placed digits) are written in."""
    values = np.zeros(81, dtype=np.int8)
    given = np.zeros(81, dtype=bool)
    cell, placed_next = 0, False
    for ch in givens.strip():
        if ch == "+":
            placed_next = True
            continue
        if cell >= 81:
            raise ValueError("the givens field has more than 81 cells")
        if ch in "123456789":
            values[cell] = int(ch)
            given[cell] = not placed_next
        elif ch not in ".0":
            raise ValueError(f"unexpected character {ch!r} in the givens field")
        cell, placed_next = cell + 1, False
    if cell != 81:
        raise ValueError(f"the givens field has {cell} cells, not 81")
    grid = Candidates.from_values(GEOMETRY, values)
    grid.given = given
    return grid


@dataclass(frozen=True)
class LibraryCase:
    """One line of HoDoKu's library: the state and what the technique must do there."""

    code: str  # "0310": HoDoKu's technique code
    variant: str  # "" or "1", "2", ... or "x" (a case where nothing may be found)
    digits: tuple[int, ...]
    grid: Candidates
    eliminations: frozenset[tuple[int, int]]
    placements: frozenset[tuple[int, int]]
    extra: str
    line: str


def read_library_line(line: str) -> LibraryCase:
    """Parse ``:<code>[-variant]:<digits>:<givens>:<deleted>:<elims>:<places>:<extra>``."""
    fields = line.strip().split(":")
    if len(fields) < 5 or fields[0] != "":
        raise ValueError("a HoDoKu library line looks like :code:digits:givens:deleted:...")
    fields += [""] * (8 - len(fields))
    code, _, variant = fields[1].partition("-")
    grid = _from_givens(fields[3])
    for cell, digit in _triples(fields[4]):
        grid.eliminate(cell, digit)
    return LibraryCase(
        code=code,
        variant=variant,
        digits=tuple(int(ch) for ch in fields[2] if ch.isdigit()),
        grid=grid,
        eliminations=frozenset(_triples(fields[5])),
        placements=frozenset(_triples(fields[6])),
        extra=fields[7],
        line=line.strip(),
    )


def _candidate_grid(text: str) -> Candidates:
    tokens = re.findall(r"[1-9]+", re.sub(r"[|+*\-=.:]", " ", text))
    if len(tokens) != 81:
        raise ValueError(
            f"a candidate grid needs 81 cells (runs of digits 1-9), found {len(tokens)}"
        )
    values = np.array([int(t) if len(t) == 1 else 0 for t in tokens], dtype=np.int8)
    marks = np.zeros((81, 9), dtype=bool)
    for cell, token in enumerate(tokens):
        if len(token) > 1:
            marks[cell, [int(ch) - 1 for ch in token]] = True
    grid = Candidates(GEOMETRY, values, marks, "123456789")
    for cell in np.flatnonzero(values):
        # a placed digit is no longer a candidate of its peers (keep marks consistent)
        grid.marks[grid.layout.sees[cell], values[cell] - 1] = False
    grid.given = values != 0
    return grid


def read_pencilmarks(text: str) -> Candidates:
    """A pencil-mark state from a HoDoKu library line or a forum candidate grid.

    Raises ValueError naming what is wrong (wrong cell count, a bad character, a struck
    candidate written as something other than <digit><row><col>).
    """
    stripped = text.strip()
    if stripped.startswith(":"):
        return read_library_line(stripped).grid
    return _candidate_grid(stripped)


def format_library_line(grid: Candidates) -> str:
    """The state as ``:0000::<givens>:<deleted>::`` (placed digits marked ``+``), the
    line HoDoKu pastes back; 9x9 only."""
    if grid.geometry.size != 9:
        raise ValueError("HoDoKu library lines are 9x9 only")
    given = getattr(grid, "given", None)
    cells, values = [], [0] * 81
    for cell in range(81):
        v = int(grid.values[cell])
        values[cell] = v
        if not v:
            cells.append(".")
        else:
            cells.append(("" if given is not None and given[cell] else "+") + str(v))
    full = Candidates.from_values(GEOMETRY, np.array(values, dtype=np.int8))
    deleted = [
        f"{d + 1}{r + 1}{c + 1}"
        for (r, c), cell in sorted(GEOMETRY.cell_at.items())
        for d in range(9)
        if full.marks[cell, d] and not grid.marks[cell, d]
    ]
    return f":0000::{''.join(cells)}:{' '.join(deleted)}::"


def marks_for(puzzle, text: str) -> Candidates:
    """The player's pencil-mark state `text` for `puzzle`, checked to belong to it: every
    given of the puzzle must stand in the state. Raises ValueError naming the first
    disagreement (or what is wrong with the text)."""
    grid = read_pencilmarks(text)
    if puzzle.geometry.size != 9 or puzzle.geometry.n_cells != 81:
        raise ValueError("pencil marks are read for 9x9 puzzles only")
    for cell in range(81):
        given = int(puzzle.values[cell])
        if given and int(grid.values[cell]) != given:
            raise ValueError(
                f"the pencil marks do not match the puzzle: {grid.name(cell)} is "
                f"{given} in the puzzle but {int(grid.values[cell]) or 'empty'} in the marks"
            )
    grid.alphabet = puzzle.alphabet
    return grid


def lost_digits(grid: Candidates, solution) -> list[str]:
    """Cells whose pencil marks (or placed digit) lost the solution's digit: the places
    where a player's own marks went wrong, named for a message."""
    problems = []
    for cell in range(grid.geometry.n_cells):
        want = int(solution[cell])
        value = int(grid.values[cell])
        if value and value != want:
            problems.append(f"{grid.name(cell)} holds {value} but the solution has {want}")
        elif not value and not grid.marks[cell, want - 1]:
            problems.append(f"{grid.name(cell)} has lost the candidate {want}")
    return problems
