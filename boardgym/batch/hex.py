"""Hex, batched: every size from 3x3 to 19x19, with or without the swap rule, over a union-find
forest of each game's chains kept in one ``int16`` row per game, so that a move costs the same
few dozen tensor operations whatever the board and however long its chains.

A game's row holds one entry per node: the ``n * n`` cells (action order), four edge nodes
(Black's top and bottom, White's left and right: each a stone of its player's colour that
every cell along that edge touches), and a spare entry where writes with nothing to write
go. An entry packs the node's colour (0 Black, 1 White, 3 empty), its tree's rank while it is
a root, and its parent node: ``colour << 13 | rank << 9 | parent``. A node whose parent is
itself is a root: each chain of stones, with the edges it touches, is one tree; an empty cell
is a root alone. An edge's rank (14) is above any other tree's (at most log2 of its size), so
an edge stays the root of everything joined to it, until the mover's two edges join: a win.

A move by player ``p`` on cell ``a`` finds the roots of ``a``'s six neighbours (an edge node
stands for a neighbour off the board) and of ``a`` by pointer jumping, all of them at once:
union by rank keeps the trees shallow (random games take four jumps at 11x11, three to five
at 19x19), and bounds them: no node of a live game is more than ``floor(log2(cells)) + 1``
links from its root, so the look-ups end after that many jumps whatever the state (where the
rules do not look, they make exactly that many). The trees of ``p``'s colour among them join ``a``'s under the one of highest rank
(ties: the highest node), its rank one up when another of that rank joins; when that root is
one of ``p``'s edges and the other edge joins too, ``p`` has won. A move's writes (the joining
roots and the cell take the new root's entry) are one ``scatter_`` into a copy of the rows: a
step never changes the state it is given.

A random legal action is the first legal one of a few random actions per game cut from one
draw of random bits (uniform over the legal ones); the games whose every try missed, near a
full board, draw from their legal mask. The stones are the entries' colours, so the
observation, the legal mask and the conversions to the scalar rules (``boardgym.games.hex``)
read those alone; ``from_scalar_states`` builds each game's trees from its stones.

On one CPU thread, B=4096, random moves with auto-reset, a step takes about 1.2 ms at 11x11
and 2 ms at 19x19 (``boardgym bench batched --games hex``). Measured against it: per-cell
labels relabelled at every merge, as pgx does (one O(cells) gather per move: 0.36 ms at 11x11,
2.4 ms at 19x19 for that op alone), and this forest with a free list of the empty cells (a
random action in one look-up, but three times the bytes to copy per move: no faster at 11x11,
a third slower at 19x19)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch

from boardgym.batch.core import BatchedGame
from boardgym.batch.tables import uniform_pick
from boardgym.games.hex import BLACK, WHITE, Hex, stones
from boardgym.types import BoardgymError

RANK_SHIFT, COLOUR_SHIFT = 9, 13
NODE = (1 << RANK_SHIFT) - 1
"""An entry's parent: a node below 512 (19x19 has 361 cells, four edges, the spare)."""
KEY = (1 << COLOUR_SHIFT) - 1
"""An entry's rank and parent: a root's key, by rank first."""
SPARE_COLOUR, EMPTY = 2, 3
EMPTY_ENTRY = EMPTY << COLOUR_SHIFT
"""The smallest entry of an empty cell: every entry below it is a stone, an edge or the spare."""
EDGE_RANK = 14
EDGE_KEY = EDGE_RANK << RANK_SHIFT
AROUND = 6
"""A cell's neighbours."""
QUERIES = AROUND + 1
"""The nodes a move looks up: the cell's neighbours, then the cell."""
TRIES = 8
"""At least this many random actions a game tries at once for a legal one (``random_actions``)."""


class HexBatch(NamedTuple):
    current_player: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    ended: torch.Tensor
    rewards: torch.Tensor
    steps: torch.Tensor
    board: torch.Tensor
    """``int16[B, n * n + 5]``: each game's entries: its cells, its four edges, the spare
    (see the module doc)."""
    swappable: torch.Tensor
    """``bool[B]``: the swap is legal now (with ``swap``: White to move, Black's one stone
    the only one on the board)."""


class BatchedHex(BatchedGame[HexBatch]):
    def __init__(self, game: Hex | None = None, device: str | torch.device = "cpu") -> None:
        game = game or Hex()
        super().__init__(game, device)
        self.game: Hex = game
        n = self.size = game.size
        self.cells = cells = n * n
        self.swap = game.swap
        edges = (cells, cells + 1, cells + 2, cells + 3)  # top, bottom, left, right
        self.nodes = cells + 4
        self.spare = cells + 4
        self.width = cells + 5
        # Each cell's six neighbours: off the board, the edge beyond (past a corner, either
        # edge the cell touches).
        self.neighbours: list[list[int]] = []
        for a in range(cells):
            y, x = divmod(a, n)
            nodes = []
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
                col, row = x + dx, y + dy
                if 0 <= col < n and 0 <= row < n:
                    nodes.append(row * n + col)
                else:
                    nodes.append(edges[0] if row < 0 else edges[1] if row >= n else edges[2] if col < 0 else edges[3])
            self.neighbours.append(nodes)
        # The nodes a move looks up (QUERIES), by cell (query i of cell a at i * (cells + 1) + a);
        # past the cells, the spare.
        queries = [[*around, a] for a, around in enumerate(self.neighbours)] + [[self.spare] * QUERIES]
        self.queries = self.tensor([row[i] for i in range(QUERIES) for row in queries], torch.int32)
        self.query_rows = self.tensor([i * (cells + 1) for i in range(QUERIES)]).view(-1, 1)
        self.around = self.tensor([-1] * AROUND + [0], torch.int16).view(-1, 1)
        self.own_colour = self.tensor([0] * AROUND + [EMPTY], torch.int16).view(-1, 1)
        edge_entries = [
            side << COLOUR_SHIFT | EDGE_KEY | edge
            for side, edge in zip((BLACK, BLACK, WHITE, WHITE), edges, strict=True)
        ]
        start = [EMPTY_ENTRY | node for node in range(cells)] + edge_entries
        start += [SPARE_COLOUR << COLOUR_SHIFT | self.spare]
        self.start_row = self.tensor(start, torch.int16)
        # The swap mirrors a cell: (x, y) -> (y, x).
        self.mirror = self.tensor([(a % n) * n + a // n for a in range(cells)])
        self._bases: dict[int, torch.Tensor] = {}
        # random_actions' tries: TRIES or more, as many as fit in the fewest words of 62 random
        # bits, each of the bits an action takes; and their order (the first try's highest).
        self.try_bits = bits = (self.num_actions - 1).bit_length()
        per_word = 62 // bits
        self.try_words = max(1, -(-TRIES // per_word))
        self.try_shifts = self.tensor([bits * i for i in range(per_word)]).view(-1, 1)
        count = self.try_words * per_word
        self.try_order = self.tensor([(count - i) << bits for i in range(count)], torch.int32).view(-1, 1)
        # The check of a forest (check_state): each touching pair of nodes, both ways.
        pairs = [(a, node) for a, around in enumerate(self.neighbours) for node in around]
        pairs += [(node, a) for a, node in pairs if node >= cells]
        self.pair_from = self.tensor([a for a, _ in pairs]).view(1, -1)
        self.pair_to = self.tensor([b for _, b in pairs]).view(1, -1)
        self.partners = self.tensor([edges[1], edges[0], edges[3], edges[2]])
        self.depth = cells.bit_length()
        """The most parent links from any node of a live game to its root (``floor(log2(cells)) +
        1``: union by rank keeps a tree of stones at most its rank high, at most ``log2`` of its
        size, and an edge adds one): a move's look-ups end after that many jumps, whatever the
        state (a forest from another size, or with a cycle, gives wrong roots but ends)."""
        self._jumps = 0
        """The jumps the last move's look-ups took: the next one makes as many without looking."""

    def base(self, batch: int) -> torch.Tensor:
        """Each game's row's first flat index in a batch of ``batch`` games (``int32``, or
        ``long`` past 2**31 entries), made once per batch size."""
        base = self._bases.get(batch)
        if base is None:
            dtype = torch.int32 if batch * self.width < 2**31 else torch.long
            base = self._bases[batch] = torch.arange(batch, device=self.device, dtype=dtype) * self.width
        return base

    # -- the rules ---------------------------------------------------------------------------
    def _start(self, batch: int, generator: torch.Generator | None) -> HexBatch:
        return HexBatch(
            board=self.start_row.expand(batch, self.width).clone(),
            swappable=torch.zeros(batch, dtype=torch.bool, device=self.device),
            **self.common(batch),
        )

    def _value_problems(self, state: HexBatch) -> list[tuple[str, str, torch.Tensor]]:
        cells, nodes = self.cells, self.nodes
        board = state.board.long()
        batch = len(board)
        ids = torch.arange(nodes, device=self.device)
        colour, parent, rank = board >> COLOUR_SHIFT, board & NODE, (board >> RANK_SHIFT) & 15
        colour, parent, rank = colour[:, :nodes], parent[:, :nodes], rank[:, :nodes]
        player, live = state.current_player, ~(state.terminated | state.truncated)
        start = self.start_row.long()
        cell = colour[:, :cells]
        # the edges: their colour; a root of an edge's rank (one up once it won), or under the other edge
        edge, edge_parent, edge_rank = board[:, cells:nodes], parent[:, cells:], rank[:, cells:]
        edges_ok = ((edge >> COLOUR_SHIFT) == (start[cells:nodes] >> COLOUR_SHIFT)) & (
            ((edge_parent == ids[cells:]) & ((edge_rank == EDGE_RANK) | (edge_rank == EDGE_RANK + 1)))
            | (edge_parent == self.partners)
        )
        stone = (colour == BLACK) | (colour == WHITE)
        inside = parent < nodes
        up = torch.where(inside, parent, ids)
        # every node's root: at most ``depth`` links in a live game, one more in a won one
        at = ids.expand(batch, nodes)
        for _ in range(self.depth):
            at = up.gather(1, at)
        too_deep = (up.gather(1, at) != at).any(1)
        roots = up.gather(1, at)
        cycle = (up.gather(1, roots) != roots).any(1)
        # the chains: touching stones of one colour, by the least node of each (label propagation)
        ends = (self.pair_from.expand(batch, -1), self.pair_to.expand(batch, -1))
        touching = (colour.gather(1, ends[0]) == colour.gather(1, ends[1])) & stone.gather(1, ends[0])
        label = ids.expand(batch, nodes).clone()
        for _ in range(nodes):
            least = label.scatter_reduce(1, ends[0], torch.where(touching, label.gather(1, ends[1]), nodes), "amin")
            least = least.gather(1, least)
            if torch.equal(least, label):
                break
            label = least
        split = (touching & (roots.gather(1, ends[0]) != roots.gather(1, ends[1]))).any(1)
        joined = (stone & (label.gather(1, roots) != label)).any(1)
        black, white = (cell == BLACK).sum(1), (cell == WHITE).sum(1)
        stones = black + white
        swappable = (player == WHITE) & (black == 1) & (white == 0) & self.swap
        won = (roots[:, cells] == roots[:, cells + 1], roots[:, cells + 2] == roots[:, cells + 3])
        return [
            (
                "board",
                "holds a cell code that is not Black, White or empty",
                ~(stone[:, :cells] | (cell == EMPTY)).all(1),
            ),
            (
                "board",
                "holds an empty cell that is not a root of its own",
                ((cell == EMPTY) & (board[:, :cells] != start[:cells])).any(1),
            ),
            ("board", "has a changed spare entry (the last)", board[:, self.spare] != start[self.spare]),
            ("board", "holds an edge entry these rules never write", ~edges_ok.all(1)),
            ("board", "has a stone whose parent is not a node of the board", (stone & ~inside).any(1)),
            (
                "board",
                "has a stone whose parent is of another colour",
                (stone & (colour.gather(1, up) != colour)).any(1),
            ),
            ("board", f"has a parent cycle, or a tree deeper than {self.depth} links", cycle | (too_deep & live)),
            (
                "board",
                "has a tree of stones of a higher rank than its size allows",
                (stone[:, :cells] & (up[:, :cells] == ids[:cells]) & (rank[:, :cells] >= self.depth)).any(1),
            ),
            ("board", "has touching stones of one colour in two trees", split),
            ("board", "has stones that do not touch in one tree", joined),
            ("steps", "is not the moves that lead to these stones", state.steps != stones + (stones + player) % 2),
            ("swappable", "does not say whether White may swap now", state.swappable != swappable),
            ("terminated", "is not set, but a player's two edges are joined", ~state.terminated & (won[0] | won[1])),
        ]

    def is_legal(self, state: HexBatch, actions: torch.Tensor) -> torch.Tensor:
        base = self.base(len(actions))
        # An action past the cells lands on an edge's entry (never empty): only the swap is legal there.
        empty = state.board.view(-1).index_select(0, base + actions) >= EMPTY_ENTRY
        if self.swap:
            return empty | ((actions == self.cells) & state.swappable)
        return empty

    def _move(self, state: HexBatch, actions: torch.Tensor, moving: torch.Tensor) -> tuple[HexBatch, torch.Tensor]:
        batch = len(actions)
        base = self.base(batch)
        board, player = state.board, state.current_player
        looks = self._looks()
        if self.swap:  # rare: White's stone on the mirror of Black's one, on an empty board
            swapping = (actions == self.cells) & moving
            if not looks:  # every game, no look: Black's one stone is the smallest entry
                black = board[:, : self.cells].argmin(1)
                actions = torch.where(swapping, self.mirror.index_select(0, black), actions)
                board = torch.where(swapping.unsqueeze(1), self.start_row, board)
            elif bool(swapping.any()):
                swapped = swapping.nonzero().view(-1)
                stones = board.index_select(0, swapped)[:, : self.cells] < EMPTY_ENTRY
                black = stones.to(torch.uint8).argmax(1)  # the one stone
                actions = actions.index_copy(0, swapped, self.mirror.index_select(0, black))
                board = board.index_copy(0, swapped, self.start_row.expand(len(swapped), self.width))
        flat = board.view(-1)
        # The nodes a move looks up: the cell's six neighbours and the cell itself (empty: its
        # own root); seven times the spare where the game does not move.
        nodes = self.queries.index_select(0, (self.query_rows + torch.where(moving, actions, self.cells)).view(-1))
        at = nodes.view(QUERIES, batch) + base
        # Their roots by pointer jumping, at most ``depth`` jumps: where the rules look, as many
        # jumps as the last move needed, then one at a time until every one is a root; where
        # they do not, all ``depth`` (a root's parent is itself: the extra jumps stay there).
        jumps = min(self._jumps, self.depth) if looks else self.depth
        for _ in range(jumps):
            at = (flat.index_select(0, at.view(-1)).view(QUERIES, batch) & NODE) + base
        entry = flat.index_select(0, at.view(-1)).view(QUERIES, batch)
        if looks:
            while not torch.equal(up := (entry & NODE) + base, at):
                if jumps == self.depth:
                    raise BoardgymError(
                        f"the Hex forest of state.board does not reach its roots in {self.depth} jumps: "
                        "a state these rules did not make (check_state says where)"
                    )
                at, jumps = up, jumps + 1
                entry = flat.index_select(0, at.view(-1)).view(QUERIES, batch)
            self._jumps = jumps
        # The trees of the mover's colour around the cell join the cell's under the root of
        # highest key, whose rank grows when another of its rank joins. An edge stays its
        # chain's root (its rank is above any other's): when the mover's two edges join, the
        # move has won. Where the game does not move only the spare is looked up: it joins
        # nothing, or itself. (Small-integer arithmetic: on CPU a comparison or a where over
        # these tensors costs several times as much.)
        mover = player.to(torch.int16)
        colours = self.own_colour | (mover & self.around)  # the mover's, the cell's row empty
        same = ((((entry >> COLOUR_SHIFT) ^ colours) - 1) >> 15) & 1  # 1 where a root is of that colour
        keys = ((entry & KEY) + 1) * same - 1  # -1 where it is not
        best = keys.amax(0)
        grows = ((((best - 1) - keys) & 0x7FFF) < (best & NODE)).amax(0)  # another key of the best's rank
        won = grows & (best >= EDGE_KEY)
        joined = (mover << COLOUR_SHIFT | best) + (grows.to(torch.int16) << RANK_SHIFT)
        # The writes: the joining roots and the cell take the new root's entry (a root's rank
        # is read only while it is one); the others their own (no change).
        targets = at.view(-1).long()
        values = entry + (joined - entry) * same
        board = board.clone() if board is state.board else board
        board.view(-1).scatter_(0, targets, values.view(-1))
        after = state._replace(board=board, current_player=player ^ moving, terminated=state.terminated | won)
        if self.swap:  # after Black's first stone on an empty board
            swappable = torch.where(moving, (player == BLACK) & (state.steps == 0), state.swappable)
            after = after._replace(swappable=swappable)
        return after, torch.where(won, player, -1)

    def restart(self, state: HexBatch, where: torch.Tensor, generator: torch.Generator | None = None) -> HexBatch:
        # where the rules look, _reset writes into the board step has just made; a board from
        # outside is copied first
        self.check_structure(state)
        if self._looks():
            state = state._replace(board=state.board.clone())
        return super().restart(state, where, generator)

    def _reset(self, state: HexBatch, ended: torch.Tensor, generator: torch.Generator | None) -> HexBatch:
        if self._looks():  # the rows that ended, in place: step resets only the board _move has just made
            rows = ended.nonzero().view(-1)
            state.board.index_copy_(0, rows, self.start_row.expand(len(rows), self.width))
            board = state.board
        else:
            board = torch.where(ended.unsqueeze(1), self.start_row, state.board)
        names = ("current_player", "terminated", "steps", *(("swappable",) if self.swap else ()))
        return state._replace(board=board, **self.reset_fields(state, ended, names))

    def random_actions(self, state: HexBatch, generator: torch.Generator | None = None) -> torch.Tensor:
        """Each game tries a few uniformly random actions at once and takes the first legal
        one (uniform over the legal ones); the few games whose every try missed (near a full
        board) draw from their legal cells."""
        batch = len(state.current_player)
        bits = self.try_bits
        words = torch.randint(0, 2**62, (self.try_words, 1, batch), generator=generator, device=self.device)
        tries = ((words >> self.try_shifts) & ((1 << bits) - 1)).view(-1, batch).to(torch.int32)  # [TRIES, B]
        # A try past the actions reads the spare entry: never empty, like an edge's.
        entries = state.board.view(-1).index_select(0, (tries.clamp(max=self.spare) + self.base(batch)).view(-1))
        entries = entries.view(-1, batch)
        legal = (entries >> (COLOUR_SHIFT + 1)) & (entries >> COLOUR_SHIFT)  # 1 where empty (colour 3), else 0
        if self.swap:
            legal = legal | ((tries == self.cells) & state.swappable).to(torch.int16)
        first = ((tries | self.try_order) * legal).amax(0)  # the first legal try, by order (0: none)
        actions = (first & ((1 << bits) - 1)).long()
        missed = first == 0
        if not self._looks():  # every game draws from its legal cells too, kept where its tries missed
            legal = state.board[:, : self.cells] >= EMPTY_ENTRY
            if self.swap:
                legal = torch.cat((legal, state.swappable.unsqueeze(1)), 1)
            actions = torch.where(missed, uniform_pick(legal, generator), actions)
        elif bool(missed.any()):
            rows = missed.nonzero().view(-1)
            legal = state.board.index_select(0, rows)[:, : self.cells] >= EMPTY_ENTRY
            if self.swap:
                legal = torch.cat((legal, state.swappable.index_select(0, rows).unsqueeze(1)), 1)
            actions = actions.index_copy(0, rows, uniform_pick(legal, generator))
        return actions

    def legal_mask(self, state: HexBatch) -> torch.Tensor:
        live = ~(state.terminated | state.truncated)
        empty = (state.board[:, : self.cells] >= EMPTY_ENTRY) & live.unsqueeze(1)
        if self.swap:
            return torch.cat((empty, (state.swappable & live).unsqueeze(1)), 1)
        return empty

    def _planes(self, state: HexBatch, player: torch.Tensor) -> torch.Tensor:
        colours = state.board[:, : self.cells] >> COLOUR_SHIFT
        player = player.unsqueeze(1)
        planes = torch.stack(
            (colours == player, colours == 1 - player, (player == BLACK).expand_as(colours)), 1
        ).float()
        return planes.view(-1, *self.observation_shape)

    # -- conversions -------------------------------------------------------------------------
    def colours(self, state: HexBatch) -> np.ndarray:
        """``int8[B, n * n]``: each cell's stone, 0 Black, 1 White, 3 empty."""
        return (state.board[:, : self.cells] >> COLOUR_SHIFT).to(torch.int8).cpu().numpy()

    def _to_scalar_states(self, state: HexBatch) -> list[Any]:
        game, n = self.game, self.size
        colours = self.colours(state).reshape(-1, n, n)
        padded = np.full((len(colours), n, n + 1), EMPTY, dtype=np.int8)  # the bitboards' stride: n + 1
        padded[:, :, :n] = colours
        size = (n * (n + 1) + 7) // 8
        states = []
        for cells, player in zip(padded, state.current_player.tolist(), strict=True):
            black, white = (
                int.from_bytes(np.packbits(cells == side, bitorder="little").tobytes()[:size], "little")
                for side in (BLACK, WHITE)
            )
            states.append(game.state(black, white, player))
        return states

    def _from_scalar_states(self, states: Sequence[Any]) -> HexBatch:
        game, cells = self.game, self.cells
        rows, counts, swappable = [], [], []
        for scalar in states:
            black, white = stones(scalar)
            colour = [BLACK if black & bit else WHITE if white & bit else EMPTY for bit in game.cell_bits]
            rows.append(self._row(colour))
            counts.append(colour.count(EMPTY))
            swappable.append(
                self.swap and game.current_player(scalar) == WHITE and not white and black.bit_count() == 1
            )
        players = [game.current_player(s) for s in states]
        placed = [cells - count for count in counts]
        return self._start(len(states), None)._replace(
            board=self.tensor(rows, torch.int16),
            swappable=self.tensor(swappable, torch.bool),
            current_player=self.tensor(players),
            terminated=self.tensor([game.is_terminal(s) for s in states], torch.bool),
            # a move a stone, but a swap (a move that places none) puts the other player to move
            steps=self.tensor([stones + (stones + player) % 2 for stones, player in zip(placed, players, strict=True)]),
        )

    def _row(self, colour: list[int]) -> list[int]:
        """A game's row of ``board`` for these stones (``colour``: each cell's): every chain a
        tree of height one under its root, an edge where it touches one (the farther edge, its
        rank one up, where it touches both: a won game)."""
        cells = self.cells
        sides = [*colour, BLACK, BLACK, WHITE, WHITE]  # every node's colour, the edges' too
        parent = list(range(self.nodes))

        def find(node: int) -> int:
            while parent[node] != node:
                node = parent[node]
            return node

        for a, side in enumerate(colour):
            if side != EMPTY:
                for node in self.neighbours[a]:
                    if sides[node] == side:
                        low, high = sorted((find(node), find(a)))  # an edge (the higher node) stays the root
                        parent[low] = high
        roots = [find(node) for node in range(self.nodes)]
        ranks = [0] * self.nodes
        for node, root in enumerate(roots):
            if node >= cells:  # an edge: a root, or under the other edge
                ranks[root] = max(ranks[root], EDGE_RANK + (root != node))
            elif root != node and root < cells:
                ranks[root] = 1
        row = [
            sides[node] << COLOUR_SHIFT | (ranks[root] if root == node else 0) << RANK_SHIFT | root
            for node, root in enumerate(roots)
        ]
        return [*row, SPARE_COLOUR << COLOUR_SHIFT | self.spare]
