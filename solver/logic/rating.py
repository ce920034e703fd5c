"""Difficulty on Sudoku Explainer's scale (ER): the rating of the hardest step.

Players, forums and puzzle books quote Sudoku Explainer's "ER": each technique has a
rating (hidden single 1.2, naked pair 3.0, XY-wing 4.2, ...), a chain's rating grows with
its length, and a puzzle's ER is the rating of the hardest step on the simplest path (at
every step the lowest-rated deduction available). `RATINGS` is the one table of technique
ratings; each entry says where its figure comes from:

- SE: Sudoku Explainer's published rating for that technique (Juillerat's 1.2.1 and the
  SukakuExplainer fork players use today, which adds skyscraper 4.0, two-string kite 4.1,
  turbot fish and empty rectangle 4.2).
- SE-equivalent: a technique SE lacks, rated as the SE technique that finds the same
  deduction (a W-wing is a six-node chain, so SE's forcing chain 7.0).
- fitted: a technique SE lacks and that no one SE technique matches (almost locked sets,
  Franken fish, kraken fish): SE needs some chain or forcing chain there, and the figure
  is the ER SE gives the puzzles whose hardest step here is that technique, from the
  tuning half of the SE-rated set (`bench/rating.py` says which half).

Chains (X-chains, AICs, forcing chains) add SE's length increment: 0.1 each time the
chain's length passes 4, 6, 8, 12, 16, 24, 32, ... (each bound alternately 3/2 and 4/3 of
the one before), the increment SE adds to every chaining technique.

>>> RATINGS["naked pair"], RATINGS["XY-wing"]
(3.0, 4.2)
>>> length_increment(4), length_increment(5), length_increment(9)
(0.0, 0.1, 0.3)
"""

from __future__ import annotations

MUTANT_SIZES = ("X-wing", "swordfish", "jellyfish", "squirmbag", "whale")

# technique (the engine's names) -> ER rating of its simplest instance
RATINGS: dict[str, float] = {
    # SE: the last empty cell of a unit is SE's hidden single "alone in its region"
    "full house": 1.0,
    "hidden single": 1.5,  # SE: 1.2 in a box, 1.5 in a row or column (see step_rating)
    "naked single": 2.3,  # SE
    "locked candidates (pointing)": 2.6,  # SE
    "locked candidates (claiming)": 2.8,  # SE
    "locked candidates": 2.6,  # other unit pairs (diagonal, clover): as pointing
    "naked pair": 3.0,  # SE
    "X-wing": 3.2,  # SE
    "hidden pair": 3.4,  # SE
    "naked triple": 3.6,  # SE
    "swordfish": 3.8,  # SE
    "hidden triple": 4.0,  # SE
    "skyscraper": 4.0,  # SukakuExplainer
    "two-string kite": 4.1,  # SukakuExplainer
    "turbot fish": 4.2,  # SukakuExplainer
    "empty rectangle": 4.2,  # SukakuExplainer (its turbot fish with an empty rectangle)
    "XY-wing": 4.2,  # SE
    "XYZ-wing": 4.4,  # SE
    "unique rectangle type 1": 4.5,  # SE
    "unique rectangle type 2": 4.6,  # SE
    "unique rectangle type 3": 4.6,  # SE: 4.5 plus the hidden or naked set's size
    "unique rectangle type 4": 4.5,  # SE
    "unique rectangle type 5": 4.6,  # SE-equivalent: type 2 with the digit in more cells
    "unique rectangle type 6": 4.6,  # SE-equivalent: a type 4 on two lines
    "hidden rectangle": 4.6,  # SE-equivalent: SE's unique rectangle type 4 on a line pair
    "avoidable rectangle type 1": 4.5,  # SE-equivalent: unique rectangle type 1
    "avoidable rectangle type 2": 4.6,  # SE-equivalent: unique rectangle type 2
    "naked quad": 5.0,  # SE
    "jellyfish": 5.2,  # SE
    "hidden quad": 5.4,  # SE
    "BUG+1": 5.6,  # SE: bivalue universal grave type 1
    # fish with fins: SukakuExplainer's grouped strong-link patterns (grouped skyscraper
    # and kite 4.3, three strong links 5.4-5.7); fitted where SE would need a chain
    "finned X-wing": 4.3,
    "sashimi X-wing": 4.3,
    "Siamese X-wing": 4.3,
    "dual two-string kite": 4.1,  # two kites at once: SE's kite
    "dual empty rectangle": 4.2,  # two at once: SE's empty rectangle
    "finned swordfish": 5.5,
    "sashimi swordfish": 5.5,
    "Siamese swordfish": 5.5,
    "finned jellyfish": 6.2,
    "sashimi jellyfish": 6.2,
    "Siamese jellyfish": 6.2,
    "W-wing": 4.4,  # SukakuExplainer's W-wing (6 nodes)
    # chains: SE's X-cycles 6.5 and forcing X-chains 6.6, then any chain 7.0; plus length
    "simple colouring": 6.5,  # SE-equivalent: a bidirectional X-cycle or forcing X-chain
    "multi-colours": 6.6,  # SE-equivalent: a forcing X-chain
    "remote pair": 6.6,  # SE-equivalent: a Y-cycle
    "X-chain": 6.6,  # SE: forcing X-chain
    "XY-chain": 6.6,  # SE: Y-chains rate as X-chains
    "AIC": 7.0,  # SE: forcing chain
    "nice loop": 7.0,  # SE: forcing chain
    "continuous nice loop": 7.0,  # SE: bidirectional cycle
    "grouped AIC": 7.3,  # fitted: SE has no groups in its chains
    "grouped nice loop": 7.3,  # fitted
    "grouped continuous nice loop": 7.3,  # fitted
    "Sue de Coq": 7.5,  # fitted
    "ALS-XZ": 7.5,  # fitted
    "ALS-XY-wing": 7.8,  # fitted
    "ALS chain": 8.0,  # fitted
    "death blossom": 8.2,  # fitted
    **{f"Franken {n}": 7.5 for n in ("X-wing", "swordfish", "jellyfish")},  # fitted
    **{f"finned Franken {n}": 7.8 for n in ("X-wing", "swordfish", "jellyfish")},  # fitted
    **{f"mutant {n}": 8.0 for n in MUTANT_SIZES},  # fitted
    **{f"finned mutant {n}": 8.2 for n in MUTANT_SIZES},  # fitted
    "kraken fish": 8.5,  # fitted: a fish whose fins are followed by chains
    # SE's Nishio (7.5), multiple (cell, region: 8.0) and dynamic (8.5) forcing chains
    "forcing chain (contradiction)": 7.5,
    "forcing chain (cell)": 8.0,
    "forcing chain (unit)": 8.0,
    **{
        f"forcing net ({kind})": 8.5  # SE: dynamic forcing chains
        for kind in ("contradiction", "either way", "cell", "unit")
    },
    "template set": 9.0,  # fitted: SE's dynamic forcing chains (+)
    "template delete": 9.0,  # fitted
    "guess": 10.0,  # SE's nested forcing chains (9.5 and up): beyond this engine's logic
}

# techniques whose rating grows with the chain's length, as SE's chains do
CHAINS = {
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
    """Links of a chain as the engine writes it ("r1c2(4) = r1c8(4) - r1c8(1) = ..."):
    every strong (=) and weak (-) link between two nodes."""
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
