"""Solving like a person: pencil marks, named techniques, explanations, hints and grades.

>>> from solver.grid import parse
>>> from solver.logic import explain, hint
>>> puzzle = parse("1-53---9----6-----------27182----------487---------53-23---------7-59-----6---8-4")
>>> hint(puzzle).technique
'naked single'
"""

from solver.logic.candidates import Candidates
from solver.logic.explain import TECHNIQUE_NAMES, Explanation, all_steps, explain, hint
from solver.logic.grade import Grade, grade_steps
from solver.logic.step import Step

__all__ = [
    "TECHNIQUE_NAMES",
    "Candidates",
    "Explanation",
    "Grade",
    "Step",
    "all_steps",
    "explain",
    "grade_steps",
    "hint",
]
