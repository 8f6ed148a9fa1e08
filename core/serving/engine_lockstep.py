"""The running requests in decode, kept as one lockstep group with a shared clock.

Every decode step gives each of them one token, so instead of adding 1 to each request's
computed and output counts (numpy on tens of rows, or a Python loop, per event) the group
keeps one decode clock D: a member's computed tokens are cb[r] + D and its outputs
ob[r] + D. What a step or a run of k steps needs from the group is kept up to date as
requests join (their prefill completes) and leave (finish, preemption, cancel):
- how many members sit at each residue of computed mod block_size, which gives how many
  need a new block in the next step and in the next k steps (a member needs one each time
  its computed count crosses a block boundary) and the sorted offsets to those boundaries;
- the sum of cb (the context sum is sum(cb) + n·D, an exact integer);
- a heap of the clock value at which each member finishes (G − ob), stale entries skipped.

The group is the decoding prefix of `running` (requests still in prefill are always the
most recently admitted). The per-request lists hold a member's true counts only after it
leaves; `_computed_of` reads either. A step planned request by request (preemption, or
fast=False) dissolves the group first (every member's counts written back) and it is
rebuilt at the next event. Integers only: the floats the engine sums are unchanged.
A mixin of engine.Engine (its state lives there).
"""
from __future__ import annotations

import heapq


class LockstepGroup:
    def _setup_group(self, n: int, bs: int) -> None:
        self._D = 0  # decode clock: steps the group has taken together
        self._ng = 0  # members: running[:ng]
        self._cb = [0] * n  # computed - D at join
        self._ob = [0] * n  # out - D at join
        self._jid = [-1] * n  # the member's join id, -1 when not a member
        self._joins = 0
        self._cnt = [0] * bs  # members by (computed - D) mod bs
        self._res = [0] * n  # a member's (computed - D) mod bs: its block boundaries' phase
        self._sumcb = 0
        self._fin: list[tuple[int, int, int]] = []  # (clock at which it finishes, r, join id)
        self._grouped = False  # False: the lists hold every running request's counts
        self._eager_members = 0  # members whose generated blocks are cached as they fill

    def _computed_of(self, r: int) -> int:
        return self._cb[r] + self._D if self._jid[r] >= 0 else self.computed[r]

    def _join(self, r: int) -> None:
        D = self._D
        cb = self.computed[r] - D
        ob = self.out[r] - D
        self._cb[r] = cb
        self._ob[r] = ob
        j = self._joins
        self._joins = j + 1
        self._jid[r] = j
        res = cb % self._bs
        self._res[r] = res
        self._cnt[res] += 1
        self._sumcb += cb
        heapq.heappush(self._fin, (self._g[r] - ob, r, j))
        self._ng += 1
        if self._eager is not None and self._eager[r]:
            self._eager_members += 1

    def _leave(self, r: int) -> None:
        """r stops decoding in lockstep: its counts go back to the lists."""
        D = self._D
        cb = self._cb[r]
        c = cb + D
        self.computed[r] = c
        self.out[r] = self._ob[r] + D
        self.blocks[r] = -(-c // self._bs)  # a decoder holds exactly the blocks of its KV
        self._jid[r] = -1
        self._cnt[cb % self._bs] -= 1
        self._sumcb -= cb
        self._ng -= 1
        if self._eager is not None and self._eager[r]:
            self._eager_members -= 1

    def _dissolve(self) -> None:
        """Write every member's counts back (a step planned request by request follows)."""
        if self._grouped:
            for r in self.running[:self._ng]:
                self._leave(r)
            self._fin.clear()
            self._grouped = False

    def _regroup(self) -> None:
        """The group again from `running`: its prefix up to the last decoding request."""
        running, is_dec = self.running, self.is_dec
        k = len(running)
        while k > 0 and not is_dec[running[k - 1]]:
            k -= 1
        for r in running[:k]:
            self._join(r)
        self._grouped = True

    def _extend_group(self) -> None:
        """Requests right after the group whose prefill just completed join it."""
        running, is_dec = self.running, self.is_dec
        k = self._ng
        while k < len(running) and is_dec[running[k]]:
            self._join(running[k])
            k += 1

    def _at_offset(self, o: int) -> int:
        """Members whose next block boundary is o steps (plus one) away."""
        return self._cnt[(-o - self._D) % self._bs]

    def _crossings(self, k: int) -> int:
        """New blocks the members need over the next k lockstep steps."""
        full, rem = divmod(k, self._bs)
        if not rem:
            return self._ng * full
        # Offsets 0..rem-1 are the residues s0, s0-1, ..., s0-rem+1 (mod bs): one or two slices.
        cnt = self._cnt
        s0 = -self._D % self._bs
        lo = s0 - rem + 1
        part = sum(cnt[lo:s0 + 1]) if lo >= 0 else sum(cnt[:s0 + 1]) + sum(cnt[lo:])
        return self._ng * full + part

    def _kth_offset(self, idx: int) -> int:
        """The idx-th smallest (0-based) offset to a member's next block boundary."""
        cnt, D, bs = self._cnt, self._D, self._bs
        seen = 0
        for o in range(bs):
            seen += cnt[(-o - D) % bs]
            if seen > idx:
                return o
        raise ValueError("offset index past the group")

    def _first_finish(self) -> int:
        """Lockstep steps until the first member finishes."""
        fin, jid = self._fin, self._jid
        while jid[fin[0][1]] != fin[0][2]:
            heapq.heappop(fin)
        return fin[0][0] - self._D

    def _finished_members(self) -> list[int]:
        """Members done at the current clock, in running order (the order _finish takes them)."""
        fin, jid, D = self._fin, self._jid, self._D
        done = []
        while fin and fin[0][0] <= D:
            _, r, j = heapq.heappop(fin)
            if jid[r] == j:
                done.append(r)
        if len(done) > 1:
            done.sort(key=self.running.index)
        return done

    def _eager_crossed(self, k: int) -> list[int]:
        """Members caching generated blocks as they fill whose count crossed a block
        boundary in the last k steps (the clock already advanced), in running order."""
        bs, D, cb, eager = self._bs, self._D, self._cb, self._eager
        return [r for r in self.running[:self._ng]
                if eager[r] and (cb[r] + D) // bs > (cb[r] + D - k) // bs]
