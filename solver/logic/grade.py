"""Difficulty: a named level from the hardest technique, a score from all the steps.

Each technique has a level and a weight. The grade's level is the level of the hardest
technique the explanation needed; the score adds up the weights of every step, so it
grows with both the hardest technique and the number of steps (the way HoDoKu scores a
puzzle; the weights below follow HoDoKu's defaults in spirit, scaled to our technique set).

>>> grade_steps(["hidden single", "naked single"]).level
'easy'
"""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("easy", "medium", "hard", "expert", "extreme", "guess")

# technique -> (level, weight per step)
TECHNIQUES: dict[str, tuple[str, int]] = {
    "full house": ("easy", 4),
    "naked single": ("easy", 4),
    "hidden single": ("easy", 14),
    "locked candidates (pointing)": ("medium", 50),
    "locked candidates (claiming)": ("medium", 50),
    "locked candidates": ("medium", 50),
    "naked pair": ("medium", 60),
    "hidden pair": ("medium", 70),
    "naked triple": ("medium", 80),
    "hidden triple": ("hard", 100),
    "naked quad": ("hard", 120),
    "hidden quad": ("hard", 150),
    "X-wing": ("hard", 140),
    "swordfish": ("expert", 150),
    "jellyfish": ("expert", 160),
    "finned X-wing": ("hard", 130),
    "sashimi X-wing": ("hard", 150),
    "finned swordfish": ("expert", 200),
    "sashimi swordfish": ("expert", 240),
    "finned jellyfish": ("expert", 250),
    "sashimi jellyfish": ("expert", 260),
    "XY-wing": ("hard", 160),
    "XYZ-wing": ("expert", 180),
    "W-wing": ("expert", 150),
    "turbot fish": ("hard", 130),
    "skyscraper": ("hard", 130),
    "two-string kite": ("hard", 150),
    "empty rectangle": ("hard", 120),
    "simple colouring": ("expert", 150),
    "X-chain": ("expert", 260),
    "XY-chain": ("expert", 260),
    "AIC": ("expert", 280),
    "nice loop": ("expert", 280),
    "grouped AIC": ("expert", 300),
    "continuous nice loop": ("expert", 280),
    "grouped continuous nice loop": ("expert", 300),
    "grouped nice loop": ("expert", 300),
    "unique rectangle type 1": ("hard", 100),
    "unique rectangle type 2": ("hard", 100),
    "unique rectangle type 3": ("hard", 100),
    "unique rectangle type 4": ("hard", 100),
    "unique rectangle type 5": ("hard", 100),
    "unique rectangle type 6": ("hard", 100),
    "hidden rectangle": ("hard", 100),
    "BUG+1": ("hard", 100),
    "forcing chain (contradiction)": ("extreme", 500),
    "forcing chain (cell)": ("extreme", 500),
    "forcing chain (unit)": ("extreme", 500),
    "guess": ("guess", 2000),
}


@dataclass(frozen=True)
class Grade:
    level: str
    score: int
    hardest: str | None

    def to_dict(self) -> dict:
        return {"level": self.level, "score": self.score, "hardest": self.hardest}


def level_rank(level: str) -> int:
    return LEVELS.index(level)


def grade_steps(techniques: list[str]) -> Grade:
    """Grade a solving path given as the technique of each step, in order."""
    hardest, score = None, 0
    for name in techniques:
        level, weight = TECHNIQUES[name]
        score += weight
        if hardest is None or (level_rank(level), weight) > (
            level_rank(TECHNIQUES[hardest][0]),
            TECHNIQUES[hardest][1],
        ):
            hardest = name
    return Grade(TECHNIQUES[hardest][0] if hardest else "easy", score, hardest)
