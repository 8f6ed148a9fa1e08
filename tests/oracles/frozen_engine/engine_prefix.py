"""The engine's prefix-caching steps (vLLM V1's kv_cache_manager): look a waiting request
up at its schedule, take the cached blocks it hits, cache blocks as they fill, give blocks
back to the pool's LRU queue when a request finishes or is preempted.

A mixin of engine._Engine (its state: P, out, computed, blocks, free, now, waiting,
running, cfg); every method here runs only when the workload carries prefix information
and config.prefix_caching is on (self.cache is not None).
"""
from __future__ import annotations

import numpy as np

from .prefix_cache import BlockCache, HashIdIdentity, SessionIdentity
from .session_arrivals import hit_rate_by_turn, links, turn_order


class PrefixSteps:
    def _setup_prefix(self, workload) -> None:
        self.cache = None
        sessions = workload.sessions
        order = self.order
        self._tool = sessions.tool_wait_s[order].astype(float) if sessions is not None else None
        self._keep = sessions.keep_kv_during_tool[order].astype(bool) if sessions is not None else None
        self._turn = sessions.turn[order].astype(np.int64) if sessions is not None else None
        self._prefix_info = workload.prefix is not None or sessions is not None
        if not self.cfg.prefix_caching or (workload.prefix is None and sessions is None):
            return
        if workload.prefix is not None:  # hash_ids say more than the session's history
            pb = workload.prefix
            self.identity = HashIdIdentity(pb.ids, pb.offsets, pb.block_tokens, order, self.P)
        else:
            prev, _ = links(sessions, order)
            self.identity = SessionIdentity(prev, sessions.shared_prefix_tokens[order], turn_order(sessions, order))
        # Blocks a request generates are cached as they fill only where another request may
        # ask for them while it runs: a session's next turn with a fixed arrival. Elsewhere
        # (hash ids: generated blocks are the request's own; a turn that waits for this one
        # to finish) they are cached when the request gives its blocks back, same result.
        self._eager_out = np.zeros(self.n, bool)
        if workload.prefix is None:
            nxt = self.arrivals.next
            has = nxt >= 0
            self._eager_out[has] = ~self.arrivals.dynamic[nxt[has]]
        self.cache = BlockCache(self.cfg.num_blocks, self.cfg.block_bytes)
        self.held: list[list] = [[] for _ in range(self.n)]  # keys of each request's leading full blocks

    def _tool_wait_s(self, r: int) -> float:
        return float(self._tool[r]) if self._tool is not None else 0.0

    def _head_plan(self, h: int, budget: int) -> tuple[int, list, int, int]:
        """(free blocks needed to admit h now, the cached keys it hits, blocks hit, tokens
        it computes in this step). The hit is the longest run of cached full blocks, at
        most (tokens − 1) // block_size: at least one token is computed for its logits."""
        bs = self.cfg.block_size
        cache = self.cache
        cache.settle(self.free, self.now)
        total = int(self.P[h] + self.out[h])
        most = (total - 1) // bs
        keys: list = []
        hit = idle = 0
        step = 16  # look up in growing chunks: a long prompt usually misses early
        while hit < most:
            chunk = self.identity.keys(h, hit, min(most, hit + step), bs)
            found, free_found = cache.lookup(chunk)
            keys.extend(chunk[:found])
            hit += found
            idle += free_found
            if found < len(chunk):
                break
            step *= 4
        num = min(total - hit * bs, budget)
        whole = total if self.cfg.reserve_full_prompt else hit * bs + num
        # Hit blocks that sit in the free queue leave it: they count against the free blocks.
        return -(-whole // bs) - hit + idle, keys, hit, num

    def _gate_cached(self, h: int, budget: int) -> int:
        return self._head_plan(h, budget)[0]

    def _admit_cached(self, budget: int, ids: list[int], chunks: list[int]) -> None:
        """FCFS admission with lookups; each admission is committed before the next lookup
        (it may take or evict blocks the next one would hit)."""
        bs = self.cfg.block_size
        admitted: list[int] = []
        computing: list[int] = []
        seats = self.cfg.max_num_seqs - len(self.running)
        for h in self.waiting:
            if budget <= 0 or len(admitted) >= seats:
                break
            gate, keys, hit, num = self._head_plan(h, budget)
            if gate > self.free:
                break
            self.free -= self.cache.touch(keys)
            need = -(-(hit * bs + num) // bs) - hit
            self.free -= need
            self.blocks[h] = hit + need
            self.held[h] = keys
            self.computed[h] = hit * bs
            admitted.append(h)
            computing.append(num)
            budget -= num
        ids.extend(admitted)
        chunks.extend(computing)
        self._admit(admitted)

    def _steps_before_watched_eviction(self, offsets: np.ndarray, k: int) -> int:
        """Lockstep decode steps (at most k) before one would evict a block held for a
        running tool wait. offsets: steps before each request's next new block, minus one."""
        bs = self.cfg.block_size
        needs = int(np.sum(np.maximum(0, (k - offsets - 1) // bs + 1)))
        safe = self.cache.blocks_before_watched(self.free, self.now, needs)
        if safe >= needs:
            return k
        # The (safe+1)-th block need comes at step q·bs + (sorted offsets)[idx] + 1.
        q, idx = divmod(safe, offsets.size)
        return q * bs + int(np.sort(offsets)[idx])

    def _register(self, rows) -> None:
        """Cache the blocks these requests just filled (prompt or generated tokens)."""
        bs = self.cfg.block_size
        cache, identity, computed, held = self.cache, self.identity, self.computed, self.held
        for r in rows:
            r = int(r)
            h = held[r]
            full = int(computed[r]) // bs
            if full > len(h):
                h.extend(cache.register(identity.keys(r, len(h), full, bs)))

    def _register_decodes(self, rows: np.ndarray) -> None:
        rows = rows[self._eager_out[rows]]
        if rows.size:
            self._register(rows)

    def _release(self, r: int, finished: bool) -> None:
        """Give r's blocks back. A finished turn followed by a tool wait keeps its KV cached
        (counted in byte·s until the wait ends or it is evicted) or drops it."""
        self._register((r,))
        held = self.held[r]
        plain = int(self.blocks[r]) - len(held)
        drop, watch_until = False, None
        if finished and self._tool is not None and self._tool[r] > 0:
            if self._keep[r]:
                watch_until = self.now + float(self._tool[r])
            else:
                drop = True
        self.free += self.cache.release(held, plain, drop, watch_until, self.now)
        self.held[r] = []
        if finished:
            self.identity.forget(r)

    def _prefix_extras(self) -> dict:
        if not self._prefix_info:
            return {}
        if self.cache is not None:  # blocks allocated in the last step leave the queue
            self.cache.settle(self.free, self.now)
        prompt = float(self.P.sum())
        extras = {"cache_hit_rate": float(self.cached.sum()) / prompt if prompt else 0.0,
                  "evicted_blocks": self.cache.evicted if self.cache is not None else 0}
        if self._turn is not None:
            extras["hit_rate_by_turn"] = hit_rate_by_turn(self._turn, self.cached, self.P)
            extras["tool_wait_kv_byte_s"] = self.cache.tool_wait_kv_byte_s if self.cache is not None else 0.0
        return extras
