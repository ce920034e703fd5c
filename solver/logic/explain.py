"""Solve like a person: run the techniques in order, one step at a time.

`explain(puzzle)` starts from the puzzle's pencil marks and repeatedly takes the first
technique (in the order below, easiest first) that can make progress, applies its step and
starts again from the top, until the grid is full. When no technique applies, it makes a
*marked guess*: the cell with fewest candidates gets the digit of the solver's answer, and
logic resumes (without forcing chains and nets: after a guess the grade is settled, and
skipping the dearest techniques keeps very hard and many-solution boards quick). The explanation records every step, the grade, whether logic alone solved
it and how far logic got before the first guess.

`hint(puzzle)` is the first step of that explanation: the next useful thing to notice.

>>> from solver.grid import parse
>>> e = explain(parse("1-53---9----6-----------27182----------487---------53-23---------7-59-----6---8-4"))
>>> e.solved_by_logic, e.grade.level
(True, 'unfair')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from solver.logic.aic import (
    aics,
    continuous_nice_loops,
    grouped_aics,
    grouped_continuous_nice_loops,
    grouped_nice_loops,
    nice_loops,
    x_chains,
    xy_chains,
)
from solver.logic.als import als_chains, als_xy_wings, als_xz, death_blossoms
from solver.logic.candidates import Candidates
from solver.logic.chains import multi_colours, remote_pairs, simple_colouring
from solver.logic.complex_fish import franken_fish, large_mutant_fish, mutant_fish
from solver.logic.fish import finned_fish, fish
from solver.logic.forcing import forcing_chains, forcing_nets
from solver.logic.grade import Grade, grade_steps
from solver.logic.intersections import locked_candidates
from solver.logic.kraken import kraken_fish
from solver.logic.single_digit import (
    dual_empty_rectangles,
    dual_kites,
    empty_rectangles,
    skyscrapers,
    turbot_fish,
    two_string_kites,
)
from solver.logic.singles import full_house, hidden_singles, naked_singles
from solver.logic.step import Step
from solver.logic.subsets import hidden_subsets, naked_subsets
from solver.logic.sue_de_coq import sue_de_coq
from solver.logic.templates import template_deletes, template_sets
from solver.logic.uniqueness import (
    avoidable_rectangles,
    bug_plus_one,
    hidden_rectangles,
    unique_rectangles,
)
from solver.logic.wings import w_wings, xy_wings, xyz_wings

Technique = Callable[[Candidates], Iterable[Step]]

# The order a solver tries them. Singles are applied in batches: every single found in one
# pass is still a single after the others are placed (each is a true fact about the grid).
TECHNIQUES: tuple[tuple[str, Technique], ...] = (
    ("full house", full_house),
    ("naked single", naked_singles),
    ("hidden single", hidden_singles),
    ("locked candidates", locked_candidates),
    ("naked pair", partial(naked_subsets, k=2)),
    ("hidden pair", partial(hidden_subsets, k=2)),
    ("naked triple", partial(naked_subsets, k=3)),
    ("hidden triple", partial(hidden_subsets, k=3)),
    ("naked quad", partial(naked_subsets, k=4)),
    ("hidden quad", partial(hidden_subsets, k=4)),
    ("X-wing", partial(fish, k=2)),
    ("skyscraper", skyscrapers),
    ("two-string kite", two_string_kites),
    ("swordfish", partial(fish, k=3)),
    ("jellyfish", partial(fish, k=4)),
    ("XY-wing", xy_wings),
    ("XYZ-wing", xyz_wings),
    ("W-wing", w_wings),
    ("turbot fish", turbot_fish),
    ("empty rectangle", empty_rectangles),
    ("dual two-string kite", dual_kites),
    ("dual empty rectangle", dual_empty_rectangles),
    ("finned X-wing", partial(finned_fish, k=2)),
    ("finned swordfish", partial(finned_fish, k=3)),
    ("finned jellyfish", partial(finned_fish, k=4)),
    ("simple colouring", simple_colouring),
    ("remote pair", remote_pairs),
    ("multi-colours", multi_colours),
    ("X-chain", x_chains),
    ("XY-chain", xy_chains),
    ("AIC", aics),
    ("nice loop", nice_loops),
    # an ALS-XZ or ALS-XY-wing is a short chain through almost locked sets: named as such
    # before the grouped chains, whose graph holds every ALS and would find them as loops
    ("ALS-XZ", als_xz),
    ("ALS-XY-wing", als_xy_wings),
    ("grouped AIC", grouped_aics),
    ("grouped nice loop", grouped_nice_loops),
    ("continuous nice loop", continuous_nice_loops),
    ("grouped continuous nice loop", grouped_continuous_nice_loops),
    ("Sue de Coq", sue_de_coq),
    ("ALS chain", als_chains),
    ("death blossom", death_blossoms),
    ("unique rectangle", unique_rectangles),
    ("hidden rectangle", hidden_rectangles),
    ("avoidable rectangle", avoidable_rectangles),
    ("BUG+1", bug_plus_one),
    # the slowest search before forcing chains (about 17 ms a state searched afresh): last
    ("Franken fish", franken_fish),
    # HoDoKu's order too: mutant after Franken fish, both before forcing chains
    ("mutant fish", mutant_fish),
    ("large mutant fish", large_mutant_fish),
    # a finned fish whose fins are followed by chains: HoDoKu's last resort before forcing
    # chains (its order: kraken fish 8450, forcing chains 8500)
    ("kraken fish", kraken_fish),
    ("forcing chain", forcing_chains),
    # every candidate supposed true and false, and eliminations read off too: HoDoKu's
    # order (forcing chains 8500, forcing nets 8600)
    ("forcing net", forcing_nets),
    # HoDoKu's last resort before brute force (its order: forcing chains 8500, template
    # set 8700, template delete 8800, brute force 8900); about 1.5 ms a state, 9x9 only
    ("template set", template_sets),
    ("template delete", template_deletes),
)
TECHNIQUE_NAMES = tuple(name for name, _ in TECHNIQUES)
BATCHED = {"full house", "naked single", "hidden single"}
NEEDS_UNIQUENESS = {"unique rectangle", "hidden rectangle", "avoidable rectangle", "BUG+1"}
AFTER_GUESS_SKIPPED = {"forcing chain", "forcing net"}
# Every elimination of a continuous nice loop is also that of an AIC (the loop without one
# of its weak links), tried earlier: in `explain` they could never fire, so only
# `all_steps` (a player's view of every pattern) looks for them.
ONLY_IN_ALL_STEPS = {"continuous nice loop", "grouped continuous nice loop"}
# Searched by `explain` and `hint` only when asked for by name (HoDoKu's solver leaves mutant
# fish off by default too): tried where nothing cheaper works, they made `explain` about 12%
# slower on top1465 (40 puzzles, the same run); in a sample of 150 one puzzle used one and
# needed a forcing chain all the same (108 finished without forcing chains either way).
ASKED_ONLY = {"mutant fish", "large mutant fish"}
# Mutant squirmbags and whales cost 0.1 to 0.15 s of CPU a state each (top1465 states),
# more than all the rest of `all_steps` together: `all_steps` too lists them only when
# asked for by name.
LISTED_WHEN_ASKED = {"large mutant fish"}
# HoDoKu-like set without chains (HoDoKu counts the turbot fish among its single-digit
# patterns, not its chains): what "logic without chains" means in bench/logic.py.
CHAIN_FREE = TECHNIQUE_NAMES[: TECHNIQUE_NAMES.index("simple colouring")] + (
    "unique rectangle",
    "hidden rectangle",
    "avoidable rectangle",
    "BUG+1",
)


@dataclass
class Explanation:
    """The steps from a puzzle to its solution, and what they say about its difficulty."""

    grid: Candidates  # the starting pencil marks
    steps: list[Step]
    grade: Grade
    solved_by_logic: bool
    unique: bool
    solution: np.ndarray | None
    logic_values: np.ndarray  # the grid where logic stopped (before the first guess)
    logic_grid: Candidates | None = None  # pencil marks where logic stopped, if it did
    snapshots: list[Candidates] = field(default_factory=list)  # marks before each step

    @property
    def guesses(self) -> int:
        return sum(step.technique == "guess" for step in self.steps)

    @property
    def logic_filled(self) -> int:
        """Cells logic filled before the first guess (givens not counted)."""
        return int((self.logic_values != 0).sum() - (self.grid.values != 0).sum())

    @property
    def empty_at_start(self) -> int:
        return int((self.grid.values == 0).sum())

    def to_json(self) -> dict:
        """A JSON-ready dict (plain str/int/bool/list/dict): steps, grade and progress."""
        g, alphabet = self.grid.geometry, self.grid.alphabet

        def line(values) -> str:
            return "".join(alphabet[v - 1] if v else "." for v in np.asarray(values).tolist())

        return {
            "solved_by_logic": self.solved_by_logic,
            "unique": self.unique,
            "grade": self.grade.to_dict(),
            "guesses": self.guesses,
            "logic_progress": {
                "filled": self.logic_filled,
                "empty_at_start": self.empty_at_start,
                "grid": line(self.logic_values),
            },
            "solution": None if self.solution is None else line(self.solution),
            "steps": [step.to_dict(g, alphabet) for step in self.steps],
        }


# -- the solver's answer ------------------------------------------------------------------


def solutions(puzzle, limit: int = 2) -> list[np.ndarray]:
    """Up to `limit` solutions, from the project's solver."""
    # The compiled engine: `solver.logic` has loaded numba already (the fish kernel), so it
    # costs a few ms once, then about 0.05 ms a top1465 puzzle against 8 ms for the plain
    # search that `solve` uses in a process that has not loaded it.
    import solver.fast  # noqa: F401
    from solver.solve import solve

    result = solve(puzzle, limit=limit)
    if result.status == "invalid":
        raise ValueError(result.reason or "the puzzle breaks the rules")
    return [np.asarray(s, dtype=np.int8) for s in result.solutions]


def _checked_solutions(puzzle) -> list[np.ndarray]:
    """Up to two solutions, or ValueError naming what is wrong with the puzzle."""
    from solver.grid import conflicts

    clashes = conflicts(puzzle)
    if clashes:
        raise ValueError(f"the puzzle breaks the rules: {clashes[0]}")
    found = solutions(puzzle, limit=2)
    if not found:
        raise ValueError("the puzzle has no solution")
    return found


# -- stepping ----------------------------------------------------------------------------


def _selected(names: Sequence[str] | None, unique: bool):
    chosen = TECHNIQUES if names is None else [(n, t) for n, t in TECHNIQUES if n in names]
    return [(n, t) for n, t in chosen if unique or n not in NEEDS_UNIQUENESS]


def _on_the_way(names: Sequence[str] | None, unique: bool):
    """The techniques a path to the solution tries (`explain`, `hint`): not those only
    `all_steps` looks for, nor the ones searched only when asked for by name."""
    skip = ONLY_IN_ALL_STEPS | (ASKED_ONLY if names is None else set())
    return [(n, t) for n, t in _selected(names, unique) if n not in skip]


def next_steps(grid: Candidates, techniques) -> list[Step]:
    """The steps of the first technique that can make progress (all singles of that kind
    in one pass, else the first step found); [] when logic is stuck."""
    for name, technique in techniques:
        if name in BATCHED:
            steps = list(technique(grid))
            if steps:
                return steps
        else:
            step = next(iter(technique(grid)), None)
            if step is not None:
                return [step]
    return []


def _still_valid(grid: Candidates, step: Step) -> bool:
    """Whether a step of a batch still says something once the steps before it are
    applied: every digit it places can still go there, and it places one or removes a
    candidate still there."""
    open_placements = all(grid.values[c] == 0 and grid.has(c, d) for c, d in step.placements)
    changes = bool(step.placements) or any(grid.has(c, d) for c, d in step.eliminations)
    return open_placements and changes


def _guess(grid: Candidates, solution: np.ndarray) -> Step:
    counts = np.where(grid.values == 0, grid.marks.sum(axis=1), 10_000)
    cell = int(np.argmin(counts))
    digit = int(solution[cell])
    if not grid.has(cell, digit):
        raise AssertionError(f"logic removed the solution's {digit} from {grid.name(cell)}")
    options = "".join(grid.symbol(d) for d in grid.digits_of(cell))
    return Step(
        "guess",
        f"no technique applies: guess {grid.name(cell)} = {grid.symbol(digit)} (one of "
        f"{options}; the digit the solver's answer has there) and carry on",
        placements=((cell, digit),),
        cells=(cell,),
        digits=(digit,),
    )


def _as_puzzle(puzzle):
    """A Puzzle, parsing text (a plain 9×9 line, rows, ...) when given a string."""
    if isinstance(puzzle, str):
        from solver.grid import parse

        return parse(puzzle)
    return puzzle


def _puzzle_grid(puzzle) -> Candidates:
    alphabet = getattr(puzzle, "alphabet", None)
    return Candidates.from_values(puzzle.geometry, puzzle.values, alphabet)


def explain(
    puzzle,
    *,
    techniques: Sequence[str] | None = None,
    keep_snapshots: bool = False,
) -> Explanation:
    """Every step from `puzzle` (a `solver.grid.Puzzle`, or text to parse) to its solution.

    `techniques` limits the technique set (names from TECHNIQUE_NAMES; singles are always
    worth including). Raises ValueError when the puzzle breaks the rules or has no
    solution; a puzzle with several solutions is explained without uniqueness techniques,
    guessing towards the first solution found.
    """
    puzzle = _as_puzzle(puzzle)
    found = _checked_solutions(puzzle)
    unique = len(found) == 1
    solution = found[0]
    start = _puzzle_grid(puzzle)
    grid = start.copy()
    chosen = _on_the_way(techniques, unique)
    steps: list[Step] = []
    snapshots: list[Candidates] = []
    logic_values, logic_grid = None, None
    while not grid.is_solved:
        batch = next_steps(grid, chosen)
        if not batch:
            if logic_values is None:
                logic_values, logic_grid = grid.values.copy(), grid.copy()
                # The grade is "guess" from here on; forcing chains, by far the dearest
                # technique, would mostly fail again before every further guess.
                chosen = [(n, t) for n, t in chosen if n not in AFTER_GUESS_SKIPPED]
            batch = [_guess(grid, solution)]
        applied = 0
        for step in batch:
            if not _still_valid(grid, step):
                continue
            if keep_snapshots:
                snapshots.append(grid.copy())
            grid.apply(step)
            steps.append(step)
            applied += 1
        if not applied:  # a finder's fault: asked again, it would answer the same forever
            raise AssertionError(
                f"{batch[0].technique} found a step that changes nothing: {batch[0].text}"
            )
    solved_by_logic = logic_values is None
    return Explanation(
        grid=start,
        steps=steps,
        grade=grade_steps(steps, start, unique),
        solved_by_logic=solved_by_logic,
        unique=unique,
        solution=solution,
        logic_values=grid.values.copy() if solved_by_logic else logic_values,
        logic_grid=logic_grid,
        snapshots=snapshots,
    )


def _state_and_uniqueness(state, unique: bool | None) -> tuple[Candidates, bool]:
    """A pencil-mark state (kept as the player left it) or a puzzle's fresh marks, and
    whether uniqueness techniques may be used (asked of the solver when not told)."""
    from solver.grid import Puzzle

    if isinstance(state, Candidates):
        grid = state
        if unique is None:
            puzzle = Puzzle(grid.geometry, grid.values, grid.alphabet)
            unique = len(_checked_solutions(puzzle)) == 1
        return grid, unique
    puzzle = _as_puzzle(state)
    if unique is None:
        unique = len(_checked_solutions(puzzle)) == 1
    return _puzzle_grid(puzzle), unique


def all_steps(
    state,
    techniques: Sequence[str] | None = None,
    *,
    unique: bool | None = None,
) -> list[Step]:
    """Every distinct deduction available in `state`, easiest technique first.

    `state` is a `Candidates` pencil-mark state (a player's own marks, see
    `solver.logic.pencilmarks`), a `Puzzle` or puzzle text. Every finder yields every
    instance it sees; steps of the same technique making the same changes are merged (the
    first, simplest explanation is kept). `unique` says whether the puzzle has one
    solution (uniqueness techniques need it); None asks the solver. Like HoDoKu's "all
    steps" panel: what a player could do next, not a path to the solution.

    >>> steps = all_steps("4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........")
    >>> steps[0].technique, len(steps) > 3
    ('hidden single', True)
    """
    grid, unique = _state_and_uniqueness(state, unique)
    found: dict[tuple, Step] = {}
    chosen = _selected(techniques, unique)
    if techniques is None:
        chosen = [(n, t) for n, t in chosen if n not in LISTED_WHEN_ASKED]
    for _name, technique in chosen:
        for step in technique(grid):
            key = (step.technique, frozenset(step.placements), frozenset(step.eliminations))
            found.setdefault(key, step)
    return list(found.values())


def hint(puzzle, *, techniques: Sequence[str] | None = None) -> Step | None:
    """The next useful step for `puzzle` (the easiest technique that makes progress), a
    marked guess when logic is stuck, or None when the puzzle is already full. `puzzle`
    may be a `Candidates` state: a player's own pencil marks."""
    if isinstance(puzzle, Candidates):  # a player's own pencil marks
        from solver.grid import Puzzle

        grid = puzzle
        puzzle = Puzzle(grid.geometry, grid.values, grid.alphabet)
    else:
        puzzle = _as_puzzle(puzzle)
        grid = _puzzle_grid(puzzle)
    if grid.is_solved:
        return None
    found = _checked_solutions(puzzle)
    batch = next_steps(grid, _on_the_way(techniques, len(found) == 1))
    return batch[0] if batch else _guess(grid, found[0])
