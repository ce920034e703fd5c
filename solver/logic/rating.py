"""Difficulty on Sudoku Explainer's scale (ER): the rating of the hardest step.

Players, forums and puzzle books quote Sudoku Explainer's "ER": each technique has a
rating (hidden single 1.2, naked pair 3.0, XY-wing 4.2, ...), a chain's rating grows with
its length, and a puzzle's ER is the rating of the hardest step on the simplest path (at
every step the lowest-rated deduction available). `RATINGS` is the one table of technique
ratings; beside each entry, where its figure comes from:

- SE: Sudoku Explainer's published rating (Juillerat's 1.2.1, kept by the SukakuExplainer
  fork that rates puzzles today); "Sukaku": a rating that fork adds (skyscraper 4.0,
  two-string kite 4.1, turbot fish and empty rectangle 4.2).
- SE-equivalent: a technique SE lacks, rated as the SE technique that makes the same
  deduction (a W-wing is a chain through two bivalue cells: SE's forcing chain, 7.0 and
  its length; a kraken fish follows a supposition through singles: SE's dynamic forcing
  chain, 8.5 and its length).
- fitted: a technique SE lacks and that no one SE technique matches (almost locked sets,
  grouped chains): the median ER that SE gives the puzzles whose hardest step here is that
  technique, over the tuning half of ../shared/datasets/se/ratings-dev.tsv (see
  bench/rating.py; n is how many puzzles).
- placed: no puzzle of the tuning half needs it; placed beside its nearest fitted or SE
  neighbour, by how much more a player has to see.

Chains (X-chains, AICs, kraken fish, forcing chains and nets) add SE's length increment:
0.1 each time the chain's length passes 4, 6, 8, 12, 16, 24, 32, ... (each bound
alternately 3/2 and 4/3 of the one before), as SE adds to every chaining technique.

>>> RATINGS["naked pair"], RATINGS["XY-wing"]
(3.0, 4.2)
>>> length_increment(4), length_increment(5), length_increment(9)
(0.0, 0.1, 0.3)
"""

from __future__ import annotations

import re

MUTANT_SIZES = ("X-wing", "swordfish", "jellyfish", "squirmbag", "whale")

# technique (the engine's names) -> ER rating of its simplest instance
RATINGS: dict[str, float] = {
    "full house": 1.0,  # SE: a hidden single alone in its unit
    "hidden single": 1.5,  # SE: 1.2 in a box (see step_rating), 1.5 in a row or column
    "naked single": 2.3,  # SE
    "locked candidates (pointing)": 2.6,  # SE (1.7 when it leaves a hidden single: SE_TIERS)
    "locked candidates (claiming)": 2.8,  # SE (1.9 when it leaves a hidden single)
    "locked candidates": 2.6,  # other unit pairs (diagonal, clover): as pointing
    "naked pair": 3.0,  # SE
    "X-wing": 3.2,  # SE
    "hidden pair": 3.4,  # SE (2.0 when it leaves a hidden single)
    "naked triple": 3.6,  # SE
    "swordfish": 3.8,  # SE
    "hidden triple": 4.0,  # SE (2.5 when it leaves a hidden single)
    "skyscraper": 4.0,  # Sukaku
    "two-string kite": 4.1,  # Sukaku
    "dual two-string kite": 4.1,  # Sukaku: two kites at once
    "turbot fish": 4.2,  # Sukaku
    "empty rectangle": 4.2,  # Sukaku: its turbot fish through an empty rectangle
    "dual empty rectangle": 4.2,  # Sukaku: two at once
    "XY-wing": 4.2,  # SE
    "XYZ-wing": 4.4,  # SE
    "unique rectangle type 1": 4.5,  # SE
    "unique rectangle type 2": 4.6,  # SE
    "unique rectangle type 3": 4.6,  # SE: 4.5 and the naked or hidden set's size
    "unique rectangle type 4": 4.5,  # SE
    "unique rectangle type 5": 4.6,  # SE-equivalent: type 2 with the digit in three cells
    "unique rectangle type 6": 4.6,  # SE-equivalent: a type 4 seen from two lines
    "hidden rectangle": 4.6,  # SE-equivalent: SE's unique rectangle type 4
    "avoidable rectangle type 1": 4.5,  # SE-equivalent: unique rectangle type 1
    "avoidable rectangle type 2": 4.6,  # SE-equivalent: unique rectangle type 2
    "naked quad": 5.0,  # SE
    "jellyfish": 5.2,  # SE
    "hidden quad": 5.4,  # SE
    "BUG+1": 5.6,  # SE: bivalue universal grave type 1
    # SE-equivalent: a finned fish is Sukaku's grouped strong-link pattern of its size
    # (grouped skyscraper 4.3, grouped 3-string kite 5.5-5.7); jellyfish placed above
    **{f"{kind} X-wing": 4.3 for kind in ("finned", "sashimi", "Siamese")},
    **{f"{kind} swordfish": 5.5 for kind in ("finned", "sashimi", "Siamese")},
    **{f"{kind} jellyfish": 6.2 for kind in ("finned", "sashimi", "Siamese")},
    # chains, plus their length: SE's X-cycle 6.5, forcing X-chain 6.6, any other 7.0
    "simple colouring": 6.5,  # SE-equivalent: an X-cycle
    "multi-colours": 6.6,  # SE-equivalent: a forcing X-chain
    "remote pair": 6.6,  # SE-equivalent: a Y-cycle
    "X-chain": 6.6,  # SE: forcing X-chain
    "XY-chain": 6.6,  # SE: as a forcing X-chain
    "AIC": 7.0,  # SE: forcing chain
    "nice loop": 7.0,  # SE: forcing chain
    "continuous nice loop": 7.0,  # SE: bidirectional cycle
    "W-wing": 7.1,  # SE-equivalent: a forcing chain of five links (SE has no W-wing)
    "grouped AIC": 8.0,  # fitted, n=2: SE's chains have no groups
    "grouped nice loop": 8.0,  # placed: as grouped AIC
    "grouped continuous nice loop": 8.0,  # placed: as grouped AIC
    "Sue de Coq": 7.5,  # placed: two almost locked sets sharing an intersection
    "ALS-XZ": 8.3,  # fitted, n=9
    "ALS-XY-wing": 8.3,  # fitted, n=11
    "ALS chain": 8.5,  # placed: above ALS-XY-wing
    "death blossom": 8.7,  # fitted, n=2
    **{f"Franken {n}": 7.5 for n in ("X-wing", "swordfish", "jellyfish")},  # placed
    **{f"finned Franken {n}": 7.8 for n in ("X-wing", "swordfish", "jellyfish")},  # placed
    **{f"mutant {n}": 8.0 for n in MUTANT_SIZES},  # placed
    **{f"finned mutant {n}": 8.2 for n in MUTANT_SIZES},  # placed
    # SE-equivalent: a supposition followed through singles to a contradiction or to the
    # same result every way is SE's dynamic forcing chain (8.5 and its length); nets, which
    # read off eliminations as well, its dynamic forcing chain (+) (9.0 and its length)
    "kraken fish": 8.5,
    **{f"forcing chain ({kind})": 8.5 for kind in ("contradiction", "cell", "unit")},
    **{f"forcing net ({kind})": 9.0 for kind in ("contradiction", "either way", "cell", "unit")},
    "template set": 9.0,  # placed: as a forcing net
    "template delete": 9.0,  # placed: as a forcing net
    # fitted, n=1: where this engine's logic ends (SE's nested forcing chains, 9.5 to 11.9).
    # Used only for a path rated from its names: with the starting marks, `rate_puzzle`
    # walks SE's chains instead (solver.logic.se_chains: the nested-chain proxy).
    "guess": 10.5,
}

# techniques whose rating grows with the chain's length, as SE's chains do
CHAINS = {
    "kraken fish",
    "forcing chain (contradiction)",
    "forcing chain (cell)",
    "forcing chain (unit)",
    "forcing net (contradiction)",
    "forcing net (either way)",
    "forcing net (cell)",
    "forcing net (unit)",
    "X-chain",
    "XY-chain",
    "AIC",
    "nice loop",
    "continuous nice loop",
    "grouped AIC",
    "grouped nice loop",
    "grouped continuous nice loop",
}


def length_increment(length: int) -> float:
    """SE's extra rating for a chain of `length` links: 0.1 each time the length passes
    4, 6, 8, 12, 16, 24, ... (bounds growing alternately by 3/2 and 4/3)."""
    added, ceiling, odd = 0, 4, False
    while length > ceiling:
        added += 1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return added / 10


def chain_length(text: str) -> int:
    """Links of a chain as the engine writes it: every strong (=) and weak (-) link of
    "r1c2(4) = r1c8(4) - r1c8(1) = ..." (a kraken fish's chains all counted, as SE counts
    every branch), or every implication of a forcing chain's trail ("r3c5=4 → r3c7=9 …
    (36 more)")."""
    if "→" in text:
        more = re.search(r"\((\d+) more\)", text)
        return text.count("→") + 1 + (int(more.group(1)) if more else 0)
    body = text.split(": ", 1)[-1].split(" (= one of", 1)[0]
    return body.count(" = ") + body.count(" - ") + body.count("]= ")


def step_rating(step) -> float:
    """The ER of one step: its technique's rating, refined by what the step shows (a
    hidden single in a box, a chain's length). `step` is a Step or a technique name."""
    name = getattr(step, "technique", step)
    rating = RATINGS[name]
    if isinstance(step, str):
        return rating
    if name == "hidden single" and " of box " in step.text:
        rating = 1.2  # SE rates a hidden single in a box below one in a row or column
    elif name in CHAINS:
        rating += length_increment(chain_length(step.text))
    return round(rating, 1)


def rate_steps(steps) -> float:
    """A path's ER: the rating of its hardest step (1.0 for a path with no steps)."""
    return max((step_rating(s) for s in steps), default=1.0)


# -- the simplest path ---------------------------------------------------------------------
#
# `explain` tries techniques in HoDoKu's order (naked singles before hidden singles, chains
# before unique rectangles, almost locked sets before forcing chains), so its hardest
# step can be harder than SE's. `rate_puzzle` walks SE's way instead: at every state the
# lowest-rated technique that makes progress. Below REFINED_BELOW that is the engine's
# own finders in SE's order (cheap: all an easy puzzle costs). From there up SE's scale
# is its hierarchy of chains, so when those finders are stuck the walk takes SE's chains
# (solver.logic.se_chains: forcing chains 7.0, multiple 8.0, dynamic 8.5, dynamic (+)
# 9.0, each with its length increment), and where those are stuck too, the nested-chain
# proxy there (9.5 to 11.9). The explain path's own steps above 7.0 (AICs, almost locked
# sets, kraken fish, ...) then only decide whether the walk is needed.

REFINED_BELOW = 7.0
# SE rates 9x9 boards; on a 16x16 its chains cost seconds a state (13 s for MasterSUDOKU
# 106 against 0.04 s), so larger boards keep the explain path's rating above 7.0
SE_WALK_MAX_SIZE = 9
# SE's own tiers within the engine's finders, tried before the finder as a whole: the
# hidden single in a box, and SE's "direct" hints (a pointing, claiming or hidden subset
# that at once leaves a hidden single, which SE counts as the hint's own placement).
# (rating, finder, technique the step must name, kind)
SE_TIERS = (
    (1.2, "hidden single", "hidden single", "box"),
    (1.7, "locked candidates", "locked candidates (pointing)", "direct"),
    (1.9, "locked candidates", "locked candidates (claiming)", "direct"),
    (2.0, "hidden pair", "hidden pair", "direct"),
    (2.5, "hidden triple", "hidden triple", "direct"),
    (2.6, "locked candidates", "locked candidates (pointing)", "any"),
)
BATCHED = {"full house", "naked single", "hidden single"}  # as explain applies them


def finder_floor(finder: str) -> float:
    """The lowest rating among the techniques a finder of `explain.TECHNIQUES` names
    ("unique rectangle" finds types 1 to 6, "Franken fish" every Franken size)."""
    stem = finder.removesuffix(" fish").removeprefix("large ")
    return min(
        r for n, r in RATINGS.items() if n == finder or n.startswith((stem + " ", stem + " ("))
    )


def _unit_kind(grid, unit: int) -> str:
    return grid.geometry.unit_names[unit].split()[0]  # "row", "column", "box", ...


def _in_a_box(grid, step) -> bool:
    """Whether a hidden single's digit has that one place in the cell's box too."""
    cell, digit = step.placements[0]
    places = grid.layout.unit_cells
    return any(
        _unit_kind(grid, u) == "box"
        and cell in places[u]
        and grid.marks[places[u], digit - 1].sum() == 1
        for u in range(len(places))
    )


def _leaves_a_single(grid, step) -> bool:
    """SE's direct hint: after a pointing or claiming, the digit has one place left in
    another unit of the first unit's kind; after a hidden subset, another digit has one
    place left in the subset's unit."""
    after = grid.copy()
    after.apply(step)
    places = grid.layout.unit_cells

    def made_single(unit: int, digit: int) -> bool:
        cells = places[unit]
        return grid.marks[cells, digit - 1].sum() > 1 and after.marks[cells, digit - 1].sum() == 1

    if step.technique.startswith("locked candidates"):
        first, digit = step.units[0], step.digits[0]
        gone = {cell for cell, _ in step.eliminations}
        return any(
            u != first
            and _unit_kind(grid, u) == _unit_kind(grid, first)
            and gone.intersection(places[u].tolist())
            and made_single(u, digit)
            for u in range(len(places))
        )
    unit = step.units[0]
    others = set(range(1, grid.geometry.size + 1)) - set(step.digits)
    return any(made_single(unit, digit) for digit in others)


def _tier_steps(grid, finder, technique: str | None, kind: str | None, batched: bool) -> list:
    """The steps one tier takes from `grid`: all of a batch, else the first."""
    steps = finder(grid)
    if technique is not None:
        steps = (s for s in steps if s.technique == technique)
    if kind == "box":
        steps = (s for s in steps if _in_a_box(grid, s))
    elif kind == "direct":
        steps = (s for s in steps if _leaves_a_single(grid, s))
    if batched:
        return list(steps)
    first = next(iter(steps), None)
    return [] if first is None else [first]


def se_order(unique: bool, below: float) -> list[tuple]:
    """(rating, finder name, finder, technique, kind) of every tier rated below `below`,
    easiest first: the engine's finders in SE's order, SE_TIERS in their places."""
    from solver.logic.explain import _on_the_way

    finders = dict(_on_the_way(None, unique))
    tiers = [(r, f, finders[f], t, k) for r, f, t, k in SE_TIERS if f in finders]
    tiers += [(finder_floor(f), f, finder, None, None) for f, finder in finders.items()]
    return [tier for tier in sorted(tiers, key=lambda t: t[0]) if tier[0] < below]


def _easiest(grid, tiers) -> tuple[float, str | None, list]:
    """The first tier that can make progress: its rating, kind and steps."""
    for rating, name, finder, technique, kind in tiers:
        steps = _tier_steps(grid, finder, technique, kind, name in BATCHED)
        if steps:
            return rating, kind, steps
    return 0.0, None, []


def simplest_rating(grid, unique: bool, below: float) -> float | None:
    """The ER of SE's simplest path from `grid` (pencil marks) using only techniques
    rated below `below`, or None when they cannot finish."""
    from solver.logic.explain import _still_valid

    grid = grid.copy()
    tiers = se_order(unique, below)
    hardest = 1.0
    while not grid.is_solved:
        rating, kind, steps = _easiest(grid, tiers)
        if not steps:
            return None
        for step in steps:
            if _still_valid(grid, step):
                hardest = max(hardest, rating if kind else step_rating(step))
                grid.apply(step)
    return hardest


def se_walk(grid, unique: bool) -> float:
    """The ER of SE's simplest path from `grid`: at every state the lowest-rated tier
    below 7.0 that makes progress, else SE's chains in their order (forcing chains,
    multiple, dynamic, dynamic (+)), the easiest hint of the first kind that has one;
    where none has, the rating of SE's nested chains from `nested_rating`."""
    from solver.logic.explain import _still_valid
    from solver.logic.se_chains import LEVELS, easiest_chain, nested_rating

    grid = grid.copy()
    tiers = se_order(unique, REFINED_BELOW)
    hardest = 1.0
    while not grid.is_solved:
        rating, kind, steps = _easiest(grid, tiers)
        if steps:
            for step in steps:
                if _still_valid(grid, step):
                    hardest = max(hardest, rating if kind else step_rating(step))
                    grid.apply(step)
            continue
        hint = next(filter(None, (easiest_chain(grid, mode) for mode in LEVELS)), None)
        if hint is None:
            return max(hardest, nested_rating(grid))
        hardest = max(hardest, hint.rating)
        grid.apply(hint)
    return hardest


def rate_puzzle(grid, steps, unique: bool) -> float:
    """A puzzle's ER from its starting pencil marks and its `explain` path: when that path
    stays below REFINED_BELOW, SE's simplest path where it is easier (the finders below
    the path's rating only: cheap); else SE's own walk with its chains (`se_walk`), on
    boards up to SE_WALK_MAX_SIZE (larger ones keep the explain path's rating)."""
    bound = rate_steps(steps)
    if bound >= REFINED_BELOW and grid.geometry.size <= SE_WALK_MAX_SIZE:
        return se_walk(grid, unique)
    simplest = simplest_rating(grid, unique, min(bound, REFINED_BELOW))
    return bound if simplest is None else min(bound, simplest)
