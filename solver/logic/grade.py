"""Difficulty: a level and a score on HoDoKu's scale, a rating on Sudoku Explainer's.

HoDoKu grades a puzzle easy, medium, hard, unfair or extreme: each technique has a level
and a weight, the puzzle's level is that of its hardest step and its score the sum of the
weights of all steps. The table below is the one place that says both. Weights follow
HoDoKu 2.2's default step scores where HoDoKu has the technique (singles 4-14, locked
candidates 50, subsets 60-150, fish 100-470, wings 140-260, uniqueness 100-110, chains
260-300, forcing chains 500); where the project names a technique HoDoKu lacks (forcing
chains of this engine's cell/unit kind, the marked guess) the weight is the nearest
HoDoKu entry, said beside it. Levels mirror HoDoKu's default difficulty of each technique.

The project's own "guess" level sits above extreme: logic alone could not finish (HoDoKu
would fall back to brute force, which it grades extreme). Before this table, the project
called unfair "expert"; `PROJECT_LEVELS` maps old names onto the scale.

`grade_steps` is the one place the level is derived: the HoDoKu level of the path's hardest
technique (hardest by level, then by weight). The rating, on Sudoku Explainer's scale
(ER 1.0 to about 11.9, what players and puzzle books quote), comes from
`solver.logic.rating`: the rating of the hardest step of the simplest path. The two scales
agree in order but not in their steps: HoDoKu calls a puzzle that needs an XY-wing (ER 4.2)
and one that needs a jellyfish (ER 5.2) both hard, and SE rates naked singles (2.3) above
hidden singles (1.2-1.5), where HoDoKu's weights go the other way.

>>> grade_steps(["hidden single", "naked single"]).level
'easy'
>>> grade_steps(["hidden single", "AIC"]).level
'unfair'
>>> grade_steps(["hidden single", "XY-wing"]).rating
4.2
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.logic.rating import rate_puzzle, rate_steps

LEVELS = ("easy", "medium", "hard", "unfair", "extreme", "guess")
PROJECT_LEVELS = {"expert": "unfair"}  # earlier project level -> HoDoKu's
MUTANT_SIZES = ("X-wing", "swordfish", "jellyfish", "squirmbag", "whale")

# technique -> (level, weight per step); HoDoKu's defaults unless noted
TECHNIQUES: dict[str, tuple[str, int]] = {
    "full house": ("easy", 4),
    "naked single": ("easy", 4),
    "hidden single": ("easy", 14),
    "locked candidates (pointing)": ("medium", 50),
    "locked candidates (claiming)": ("medium", 50),
    "locked candidates": ("medium", 50),  # other unit pairs (diagonal, clover): as above
    "naked pair": ("medium", 60),
    "hidden pair": ("medium", 70),
    "naked triple": ("medium", 80),
    "hidden triple": ("medium", 100),
    "naked quad": ("hard", 120),
    "hidden quad": ("hard", 150),
    "X-wing": ("hard", 100),
    "swordfish": ("hard", 140),
    "jellyfish": ("hard", 180),
    "finned X-wing": ("hard", 130),
    "sashimi X-wing": ("hard", 150),
    "finned swordfish": ("unfair", 200),
    "sashimi swordfish": ("unfair", 240),
    "finned jellyfish": ("unfair", 250),
    "sashimi jellyfish": ("unfair", 260),
    # Siamese fish: HoDoKu scores them as the sashimi fish of their size
    "Siamese X-wing": ("hard", 150),
    "Siamese swordfish": ("unfair", 240),
    "Siamese jellyfish": ("unfair", 260),
    "skyscraper": ("hard", 130),
    "two-string kite": ("hard", 150),
    "turbot fish": ("hard", 120),
    "empty rectangle": ("hard", 120),
    "dual two-string kite": ("hard", 150),
    "dual empty rectangle": ("hard", 120),
    "XY-wing": ("hard", 160),
    "XYZ-wing": ("hard", 180),
    "W-wing": ("hard", 150),
    "simple colouring": ("hard", 150),
    "remote pair": ("hard", 110),
    "multi-colours": ("hard", 200),
    "unique rectangle type 1": ("hard", 100),
    "unique rectangle type 2": ("hard", 100),
    "unique rectangle type 3": ("hard", 100),
    "unique rectangle type 4": ("hard", 100),
    "unique rectangle type 5": ("hard", 100),
    "unique rectangle type 6": ("hard", 100),
    "hidden rectangle": ("hard", 100),
    "avoidable rectangle type 1": ("hard", 100),
    "avoidable rectangle type 2": ("hard", 100),
    "BUG+1": ("medium", 100),
    "X-chain": ("unfair", 260),
    "XY-chain": ("unfair", 260),
    "AIC": ("unfair", 280),
    "nice loop": ("unfair", 280),
    "continuous nice loop": ("unfair", 280),
    "grouped AIC": ("unfair", 300),
    "grouped nice loop": ("unfair", 300),
    "grouped continuous nice loop": ("unfair", 300),
    "Sue de Coq": ("unfair", 250),
    "ALS-XZ": ("unfair", 300),
    "ALS-XY-wing": ("unfair", 320),
    "ALS chain": ("unfair", 340),
    "death blossom": ("unfair", 360),
    # Franken fish: HoDoKu's weights (Franken 300-370, finned Franken 390-430)
    **{
        f"Franken {n}": ("unfair", w)
        for n, w in (("X-wing", 300), ("swordfish", 350), ("jellyfish", 370))
    },
    **{
        f"finned Franken {n}": ("unfair", w)
        for n, w in (("X-wing", 390), ("swordfish", 410), ("jellyfish", 430))
    },
    # mutant fish: HoDoKu rates them extreme (mutant 450, finned mutant 470 at every size)
    **{f"mutant {n}": ("extreme", 450) for n in MUTANT_SIZES},
    **{f"finned mutant {n}": ("extreme", 470) for n in MUTANT_SIZES},
    "kraken fish": ("extreme", 500),  # HoDoKu's weight (a last resort there, like forcing chains)
    "forcing chain (contradiction)": ("extreme", 500),
    "forcing chain (cell)": ("extreme", 500),  # HoDoKu's forcing chain verity
    "forcing chain (unit)": ("extreme", 500),  # HoDoKu's forcing chain verity
    # HoDoKu's forcing nets (contradiction and verity): 700
    **{
        f"forcing net ({kind})": ("extreme", 700)
        for kind in ("contradiction", "either way", "cell", "unit")
    },
    # HoDoKu scores templates as it scores brute force (10000, extreme). Here the marked
    # guess weighs 2000, and a template step is logic, not a guess: 1000, between forcing
    # chains and the guess, so one template never outweighs a guess.
    "template set": ("extreme", 1000),
    "template delete": ("extreme", 1000),
    "guess": ("guess", 2000),  # HoDoKu's brute force is 10000 and extreme; see above
}


@dataclass(frozen=True)
class Grade:
    level: str
    score: int
    hardest: str | None
    rating: float = 1.0  # Sudoku Explainer's scale (ER), see solver.logic.rating

    def to_dict(self) -> dict:
        return {
            "level": self.level,
            "score": self.score,
            "hardest": self.hardest,
            "rating": self.rating,
        }


def level_rank(level: str) -> int:
    return LEVELS.index(PROJECT_LEVELS.get(level, level))


def grade_steps(steps, grid=None, unique: bool = True) -> Grade:
    """Grade a solving path given as its steps (or the technique of each step), in order.
    With the starting pencil marks `grid`, the rating follows SE's simplest path where it
    is easier than this one (see solver.logic.rating)."""
    steps = list(steps)
    hardest, score = None, 0
    for name in (getattr(s, "technique", s) for s in steps):
        level, weight = TECHNIQUES[name]
        score += weight
        if hardest is None or (level_rank(level), weight) > (
            level_rank(TECHNIQUES[hardest][0]),
            TECHNIQUES[hardest][1],
        ):
            hardest = name
    level = TECHNIQUES[hardest][0] if hardest else "easy"
    rating = rate_steps(steps) if grid is None else rate_puzzle(grid, steps, unique)
    return Grade(level, score, hardest, rating)
