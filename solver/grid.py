"""Puzzles as text and back: parsing, formatting and checking the givens.

A `Puzzle` is a geometry (which cells and units), an int8 array of values (0 = blank,
1..size) and the alphabet its symbols print with. Parsing accepts what people paste:
one line of 81 characters, nine lines of nine, Norvig's pretty board with `|` and `+`,
n²×n² boards (4×4, 6×6 with 2×3 boxes, 9×9, 16×16, 25×25) and the clover layout, where
`.` also marks positions outside every grid.

>>> p = parse("1-53---9-" + "-" * 72)
>>> p.geometry.size, int(p.values[0]), format_line(p)[:9]
(9, 1, '1.53...9.')
>>> conflicts(parse("11" + "." * 79))
['r1c1 and r1c2 both hold 1']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver import geometry as geo
from solver.geometry import Geometry, per_geometry

BLANKS = "0.?-_"
VARIANTS = ("standard", "diagonal", "clover")
# Board side -> the alphabets boards of that side are printed in, preferred first;
# `detect_alphabet` picks one from the symbols present.
ALPHABETS = {
    4: ("1234",),
    6: ("123456",),
    8: ("12345678",),
    9: ("123456789",),
    12: ("123456789ABC",),
    16: ("123456789ABCDEFG", "0123456789ABCDEF"),
    25: (
        "ABCDEFGHIJKLMNOPQRSTUVWXY",
        "123456789ABCDEFGHIJKLMNOP",
        "0123456789ABCDEFGHIJKLMNO",
    ),
}
# A line made only of these (and holding at least one `+`) is a box separator.
_SEPARATOR_CHARS = set("-+=|─━┼╋│ ")
_CELL_SEPARATORS = " \t|│"


class PuzzleFormatError(ValueError):
    """Text that is not a puzzle; the message names the position and the character."""


@dataclass(frozen=True, eq=False)
class Puzzle:
    """A board to solve: `values[i]` is cell i's symbol number (0 = blank, 1..size)."""

    geometry: Geometry
    values: np.ndarray
    alphabet: str

    def __post_init__(self) -> None:
        values = np.ascontiguousarray(self.values, dtype=np.int8)
        values.setflags(write=False)
        object.__setattr__(self, "values", values)
        if values.shape != (self.geometry.n_cells,):
            raise ValueError(
                f"a {self.geometry.name} puzzle has {self.geometry.n_cells} cells, "
                f"got values of shape {values.shape}"
            )
        if len(self.alphabet) != self.geometry.size:
            raise ValueError(f"alphabet {self.alphabet!r} must have {self.geometry.size} symbols")
        # One reduction: negative int8 values read as >= 128 through a uint8 view.
        if values.size and values.view(np.uint8).max() > self.geometry.size:
            raise ValueError(f"values must lie in 0..{self.geometry.size}")

    @property
    def size(self) -> int:
        return self.geometry.size

    @property
    def n_givens(self) -> int:
        return int(np.count_nonzero(self.values))

    def with_values(self, values: np.ndarray) -> Puzzle:
        """The same board and alphabet holding other values (a solution, a step)."""
        return Puzzle(self.geometry, np.asarray(values), self.alphabet)

    def symbol(self, value: int) -> str:
        return self.alphabet[value - 1] if value else "."

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Puzzle):
            return NotImplemented
        return (
            self.geometry == other.geometry
            and self.alphabet == other.alphabet
            and np.array_equal(self.values, other.values)
        )

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return format_rows(self)


# ----------------------------------------------------------------------------- parsing


def parse(text: str, *, alphabet: str | None = None, variant: str | None = None) -> Puzzle:
    """Read a puzzle from text: one line, one line per board row, or a pretty board.

    The board size comes from the number of symbols (16, 36, 81, 256, 625 cells; 441
    board positions or 369 cells for clover). Blanks are any of `0 . ? - _` that is not in
    the alphabet.

    Parameters
    ----------
    text : str
        The board.
    alphabet : str, optional
        The symbols in order (value 1 first); by default detected ("123456789",
        "123456789ABCDEFG", ...).
    variant : {"standard", "diagonal", "clover"}, optional
        None takes clover when the shape says so and standard otherwise.

    Returns
    -------
    Puzzle

    Raises
    ------
    PuzzleFormatError
        A message naming what does not fit (the count of symbols, an unknown symbol...).

    Examples
    --------
    >>> parse("." * 80 + "9").values[-1]
    np.int8(9)
    >>> parse("--3-" "----" "----" "----").geometry.size
    4
    >>> parse("--6-" "----" "----" "----")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    solver.grid.PuzzleFormatError: r1c3 (position 3): '6' is not a symbol of this 4×4 puzzle ...
    """
    variant = _check_variant(variant)
    rows = _board_rows(text)
    if not rows:
        raise PuzzleFormatError("empty puzzle: no symbols found")
    geometry = _geometry_for(rows, variant)
    symbols = _symbols_by_position(rows, geometry)
    if alphabet is None:
        alphabet = detect_alphabet(geometry.size, "".join(ch for _, ch in symbols))
    else:
        alphabet = _check_alphabet(alphabet, geometry.size)
    return Puzzle(geometry, _values(symbols, geometry, alphabet), alphabet)


def detect_alphabet(size: int, symbols: str) -> str:
    """The alphabet a board of `size` is written in, judged from the symbols it uses.

    The first alphabet holding every symbol used wins; failing that, the first holding
    all but `0` (then `0` is a blank).

    >>> detect_alphabet(16, "0.3F"), detect_alphabet(16, "0.3G")
    ('0123456789ABCDEF', '123456789ABCDEFG')
    """
    candidates = ALPHABETS.get(size)
    if candidates is None:
        raise PuzzleFormatError(f"no default alphabet for a board of size {size}; give one")
    used = set(symbols.upper()) - set(".?-_")
    for allowed in (set(), {"0"}):
        for alphabet in candidates:
            if used - allowed <= set(alphabet):
                return alphabet
    return candidates[0]


def _check_variant(variant: str | None) -> str | None:
    if variant is None:
        return None
    variant = variant.lower()
    if variant not in VARIANTS:
        raise PuzzleFormatError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return variant


def _check_alphabet(alphabet: str, size: int) -> str:
    alphabet = alphabet.upper()
    if len(alphabet) != size or len(set(alphabet)) != size:
        raise PuzzleFormatError(
            f"alphabet {alphabet!r} must have {size} different symbols for a {size}×{size} board"
        )
    clash = set(alphabet) & set(".?-_")
    if clash:
        raise PuzzleFormatError(f"alphabet {alphabet!r} uses blank marks {''.join(sorted(clash))}")
    return alphabet


def _is_separator(line: str) -> bool:
    return set(line) <= _SEPARATOR_CHARS and bool(set(line) & set("+┼╋"))


def _board_rows(text: str) -> list[str]:
    """The board's rows as strings of symbols, dropping `|`, spaces and separator lines."""
    rows = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or _is_separator(line):
            continue
        rows.append("".join(ch for ch in line if ch not in _CELL_SEPARATORS))
    return rows


SIZES = (4, 6, 9, 16, 25)


def _geometry_for(rows: list[str], variant: str | None) -> Geometry:
    """The geometry the text describes: by length of the one line, or rows × columns."""
    clover = geo.clover()
    if variant is None:
        n = sum(map(len, rows))
        clover_shaped = len(rows) == clover.rows or (
            len(rows) == 1 and n in (clover.rows * clover.cols, clover.n_cells)
        )
        variant = "clover" if clover_shaped else "standard"
    if variant == "clover":
        n = sum(map(len, rows))
        if len(rows) == 1 and n in (clover.rows * clover.cols, clover.n_cells):
            return clover
        if len(rows) == clover.rows:
            _check_row_lengths(rows, clover.cols)
            return clover
        raise PuzzleFormatError(
            f"a clover puzzle has 21 rows of 21 positions (or one line of 441 or 369 symbols); "
            f"got {len(rows)} row(s) with {n} symbols"
        )
    if len(rows) == 1:
        n = len(rows[0])
        size = next((s for s in SIZES if s * s == n), None)
        if size is None:
            raise PuzzleFormatError(
                f"a one-line puzzle has 16, 36, 81, 256 or 625 symbols (4×4 to 25×25); got {n}"
            )
    else:
        size = len(rows)
        if size not in SIZES:
            raise PuzzleFormatError(
                f"a board has 4, 6, 9, 16 or 25 rows; got {size} rows (first row {rows[0]!r})"
            )
        _check_row_lengths(rows, size)
    if variant == "diagonal":
        root = int(round(size**0.5))
        if root * root != size:
            raise PuzzleFormatError(
                f"diagonal sudoku needs square boxes; a {size}×{size} board has none"
            )
        return geo.diagonal(root)
    return geo.for_size(size)


def _check_row_lengths(rows: list[str], width: int) -> None:
    for r, row in enumerate(rows, 1):
        if len(row) != width:
            raise PuzzleFormatError(f"row {r} has {len(row)} symbols, expected {width}: {row!r}")


def _symbols_by_position(rows: list[str], geometry: Geometry) -> list[tuple[int, str]]:
    """(board position index, character) for every position of the board, in reading order."""
    flat = "".join(rows)
    if len(flat) == geometry.n_cells and not geometry.is_square_board:
        # Cells only (clover written without its gaps).
        return [
            (r * geometry.cols + c, ch) for (r, c), ch in zip(geometry.positions, flat, strict=True)
        ]
    return list(enumerate(flat))


def _values(symbols: list[tuple[int, str]], geometry: Geometry, alphabet: str) -> np.ndarray:
    blanks = set(BLANKS) - set(alphabet)
    index = {ch: k for k, ch in enumerate(alphabet, 1)}
    values = np.zeros(geometry.n_cells, dtype=np.int8)
    cell_at = geometry.cell_at
    for pos, ch in symbols:
        r, c = divmod(pos, geometry.cols)
        cell = cell_at.get((r, c))
        where = f"r{r + 1}c{c + 1}"
        if cell is None:
            if ch not in blanks:
                raise PuzzleFormatError(
                    f"{where} (position {pos + 1}) lies outside every grid but holds {ch!r}; "
                    "mark such positions with '.'"
                )
            continue
        if ch in blanks:
            continue
        ch = ch.upper() if ch.upper() in index else ch
        if ch not in index:
            raise PuzzleFormatError(
                f"{where} (position {pos + 1}): {ch!r} is not a symbol of this "
                f"{geometry.size}×{geometry.size} puzzle (symbols {alphabet}, "
                f"blanks {' '.join(sorted(blanks))})"
            )
        values[cell] = index[ch]
    return values


# ----------------------------------------------------------------------------- formatting


def _board(puzzle: Puzzle, blank: str, outside: str) -> list[list[str]]:
    g = puzzle.geometry
    board = [[outside] * g.cols for _ in range(g.rows)]
    for (r, c), v in zip(g.positions, puzzle.values.tolist(), strict=True):
        board[r][c] = puzzle.alphabet[v - 1] if v else blank
    return board


def _square_rows(puzzle: Puzzle, blank: str) -> list[str]:
    """Rows of a board with no gaps, by byte translation (fast enough for big files)."""
    table = bytearray(256)
    table[: puzzle.size + 1] = (blank + puzzle.alphabet).encode("ascii")
    flat = puzzle.values.tobytes().translate(bytes(table)).decode("ascii")
    cols = puzzle.geometry.cols
    return [flat[i : i + cols] for i in range(0, len(flat), cols)]


def format_rows(puzzle: Puzzle, blank: str | None = None) -> str:
    """One line of text per board row (clover gaps as `.`, blanks as `-` there).

    Parameters
    ----------
    puzzle : Puzzle
    blank : str, optional
        The blank mark; by default `.` (or `-` on a clover board).

    Returns
    -------
    str

    Examples
    --------
    >>> print(format_rows(parse("1234" + "." * 12)))
    1234
    ....
    ....
    ....
    """
    blank = blank or ("." if puzzle.geometry.is_square_board else "-")
    if puzzle.geometry.is_square_board and (blank + puzzle.alphabet).isascii():
        return "\n".join(_square_rows(puzzle, blank))
    return "\n".join("".join(row) for row in _board(puzzle, blank, "."))


def format_line(puzzle: Puzzle, blank: str | None = None) -> str:
    """The whole board on one line, reading order (the benchmark-file format).

    Parameters
    ----------
    puzzle : Puzzle
    blank : str, optional
        The blank mark; by default `.`.

    Returns
    -------
    str

    Examples
    --------
    >>> format_line(parse("1234" + "0" * 12))
    '1234............'
    """
    blank = blank or ("." if puzzle.geometry.is_square_board else "-")
    if puzzle.geometry.is_square_board and (blank + puzzle.alphabet).isascii():
        return "".join(_square_rows(puzzle, blank))
    return format_rows(puzzle, blank).replace("\n", "")


def format_pretty(puzzle: Puzzle, blank: str = ".") -> str:
    """A board for people: symbols spaced, `|` between boxes, `+` lines between bands.

    Parameters
    ----------
    puzzle : Puzzle
    blank : str
        The blank mark.

    Returns
    -------
    str

    Examples
    --------
    >>> print(format_pretty(parse("1234" + "." * 12)))
    1 2 | 3 4
    . . | . .
    ----+----
    . . | . .
    . . | . .
    """
    g = puzzle.geometry
    box_rows, box_cols = g.box_shape or (g.rows, g.cols)
    board = _board(puzzle, blank, " ")
    lines = []
    for r, row in enumerate(board):
        if r and r % box_rows == 0:
            lines.append(_separator(g.cols, box_cols))
        groups = [" ".join(row[c : c + box_cols]) for c in range(0, g.cols, box_cols)]
        lines.append(" | ".join(groups).rstrip())
    return "\n".join(lines)


def _separator(cols: int, box_cols: int) -> str:
    width = 2 * box_cols - 1
    bands = [
        "-" * (width + (0 if c == 0 else 1) + (0 if c + box_cols >= cols else 1))
        for c in range(0, cols, box_cols)
    ]
    return "+".join(bands)


# ----------------------------------------------------------------------------- checking


def conflicts(puzzle: Puzzle) -> list[str]:
    """Every pair of cells sharing a unit and a value, named as players name cells.

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    list of str
        Empty when the givens obey the rules.

    Examples
    --------
    >>> conflicts(parse("1" + "." * 8 + "1" + "." * 71))
    ['r1c1 and r2c1 both hold 1']
    """
    if not _has_repeats(puzzle):
        return []
    g, values = puzzle.geometry, puzzle.values
    found: dict[tuple[int, int], str] = {}
    for unit in g.units:
        first: dict[int, int] = {}
        for cell in unit:
            v = int(values[cell])
            if not v:
                continue
            if v in first:
                pair = (first[v], cell)
                found.setdefault(
                    pair,
                    f"{g.cell_name(pair[0])} and {g.cell_name(pair[1])} both hold {puzzle.symbol(v)}",
                )
            else:
                first[v] = cell
    return [found[pair] for pair in sorted(found)]


def _has_repeats(puzzle: Puzzle) -> bool:
    """Quick vectorised test: does any unit hold a symbol twice?"""
    in_units = puzzle.values[_unit_array(puzzle.geometry)].astype(np.int64)
    size = puzzle.geometry.size
    rows = np.arange(in_units.shape[0])[:, None] * (size + 1)
    counts = np.bincount((in_units + rows).ravel(), minlength=in_units.shape[0] * (size + 1))
    counts = counts.reshape(-1, size + 1)[:, 1:]
    return bool((counts > 1).any())


@per_geometry
def _unit_array(geometry: Geometry) -> np.ndarray:
    return np.array(geometry.units, dtype=np.intp)
