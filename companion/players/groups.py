"""The Expert area cards' groups at a playout's end, on bits: scoring.area_groups's very count, made cheaper.

A playout ends in a board nobody has scored before (a memo of scoring's answers hit one end in four), and
scoring.area_groups works on names and frozensets, so at the end of every playout it was a sixth of strong's CPU.
Here a neighborhood is a bit, a group a mask, and the tally's own packing search (scoring.packer) counts the most
disjoint groups; when the groups found share no building, which is
most ends, their number is the answer without a search. tests/test_players.py checks every card against
scoring.area_groups on thousands of random sets of buildings.
"""
from __future__ import annotations

from itertools import combinations

from companion.game.board import Board
from companion.game.scoring import packer


class Groups:
    """The board's features as masks over neighborhood indices (`idx`), once per board."""

    def __init__(self, board: Board, idx: dict):
        self.bridges = [(idx[a], idx[b]) for a, b in board.bridges]
        self.statues = [sum(1 << idx[n] for n in st.neighborhoods) for st in board.statues]
        # a lake's own bit above the neighborhoods' keeps it to one trio, as scoring's lake id does
        self.lakes = [(tuple(sorted(idx[n] for n in lake.neighborhoods)), 1 << (len(idx) + x))
                      for x, lake in enumerate(board.lakes)]
        self.near = [tuple(sorted(idx[m] for m in board.neighborhoods[nb].neighbors)) for nb in sorted(idx, key=idx.get)]

    def count(self, area: str, mine: set, bits: int) -> int:
        """How many disjoint groups of `area` the buildings `mine` (indices; `bits` the same as a mask) form; the
        districts card is counted by the caller, who keeps each district's buildings."""
        if area == "bridges":
            return most_disjoint([1 << a | 1 << b for a, b in self.bridges if bits >> a & 1 and bits >> b & 1])
        if area == "statues":
            return most_disjoint([m for m in self.statues if m & bits == m])
        if area == "lakes":
            full = self._full_lakes(bits)
            if not self._shared(full):      # no building borders two such lakes: one trio from each, no search
                return len(full)
            return most_disjoint([1 << a | 1 << b | 1 << c | lake for have, lake in full
                                  for a, b, c in combinations(have, 3)])
        if area == "chains":
            # A chain of three lies within one connected patch of the buildings: a patch of 3 to 5 holds exactly
            # one (two need six buildings), a larger one is searched on its own connected threes.
            total = 0
            for patch in self.patches(mine, bits):
                if len(patch) >= 6:
                    total += most_disjoint(list({1 << a | 1 << mid | 1 << b for mid in patch
                                                 for a, b in combinations([j for j in self.near[mid] if bits >> j & 1], 2)}))
                elif len(patch) >= 3:
                    total += 1
            return total
        raise ValueError(area)

    def _full_lakes(self, bits: int) -> list:
        """(the buildings by it, its bit) for each lake that has at least three of them."""
        return [(have, lake) for members, lake in self.lakes if len(have := [i for i in members if bits >> i & 1]) >= 3]

    @staticmethod
    def _shared(full: list) -> bool:
        return sum(len(have) for have, _ in full) != len({i for have, _ in full for i in have})

    def lakes_share(self, bits: int) -> bool:
        """Whether a building borders two lakes that each have three: the one case the lakes card is searched."""
        return self._shared(self._full_lakes(bits))

    def patches(self, mine: set, bits: int):
        """The connected patches of the buildings `mine`, each a list of indices."""
        left = bits
        for start in mine:
            if not left >> start & 1:
                continue
            patch, left, k = [start], left & ~(1 << start), 0
            while k < len(patch):
                for j in self.near[patch[k]]:
                    if left >> j & 1:
                        left &= ~(1 << j)
                        patch.append(j)
                k += 1
            yield patch


def most_disjoint(masks: list) -> int:
    """The largest number of pairwise-disjoint masks (scoring.max_disjoint's count, on the playout's own bits)."""
    union, size = 0, 0
    for m in masks:
        union |= m
        size += m.bit_count()
    if size == union.bit_count():            # no two share a bit (duplicates share theirs): every one counts
        return len(masks)
    return packer(list(set(masks)))(union)
