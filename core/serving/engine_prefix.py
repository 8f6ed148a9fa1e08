"""The engine's prefix-caching steps (vLLM V1's kv_cache_manager): look a waiting request
up at its schedule, take the cached blocks it hits, cache blocks as they fill, give blocks
back to the pool's LRU queue when a request finishes or is preempted.

A mixin of engine.Engine (its state: P, out, computed, blocks, free, now, waiting,
running, cfg, the lockstep group); every method here runs only when the workload carries prefix information
and config.prefix_caching is on (self.cache is not None).
"""
from __future__ import annotations

import numpy as np

from core.serving.prefix_cache import BlockCache, HashIdIdentity, SessionIdentity
from core.serving.session_arrivals import hit_rate_by_turn, links, turn_order
from core.serving.workload import Workload


_NEVER = 1 << 62  # no lazy blocks


class PrefixSteps:
    def _setup_prefix(self, workload: Workload) -> None:
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
        # A request asks keys for at most (prompt + output) // block_size blocks.
        self.identity.blocks_hint = ((self.P + self.G) // self.cfg.block_size + 1).tolist()
        bound = max(self.identity.blocks_hint, default=1)  # no block index reaches it
        if isinstance(self.identity, HashIdIdentity):
            self.identity.set_bound(bound, self.cfg.block_size)
        else:
            self.identity.set_bound(bound)
        self.cache = BlockCache(self.cfg.num_blocks, self.cfg.block_bytes)
        # The waiting head's last lookup (h, tokens, cache epoch, keys, hit, idle): the gate
        # of a closed-form run and the admission right after it look the head up alike.
        self._plan_memo = None
        self.held: list[list] = [[] for _ in range(self.n)]  # keys of each request's leading full blocks
        # Hash ids: the blocks of r from _lazy[r] on are r's alone (unreachable_from), so
        # nobody else can hit them and they are not cached block by block as they fill:
        # counted, and queued as one run of unreachable cached blocks when r finishes (as
        # release queues them). Only r itself could hit them, after a preemption: then
        # they are cached (with their keys) and r caches as it fills from then on. Not
        # for a request with a tool wait (its blocks are watched or dropped one by one).
        self._lazy = None
        if isinstance(self.identity, HashIdIdentity):
            bs, tool = self.cfg.block_size, self._tool
            self._lazy = [_NEVER if tool is not None and tool[r] > 0 else self.identity.unreachable_from(r, bs)
                          for r in range(self.n)]
            # Keys are asked for up to the first lazy block at most (a sure miss).
            self.identity.blocks_hint = list(map(min, self.identity.blocks_hint, [z + 1 for z in self._lazy]))

    def _tool_wait_s(self, r: int) -> float:
        return float(self._tool[r]) if self._tool is not None else 0.0

    def _head_plan(self, h: int, budget: int) -> tuple[int, list, int, int]:
        """(free blocks needed to admit h now, the cached keys it hits, blocks hit, tokens
        it computes in this step). The hit is the longest run of cached full blocks, at
        most (tokens − 1) // block_size: at least one token is computed for its logits."""
        bs = self.cfg.block_size
        cache = self.cache
        cache.settle(self.free, self.now)
        total = self._p[h] + self.out[h]
        memo = self._plan_memo  # the same head, the cache unchanged since: the same lookup
        if memo is not None and memo[0] == h and memo[1] == total and memo[2] == cache.epoch:
            keys, hit, idle = memo[3], memo[4], memo[5]
        else:
            most = (total - 1) // bs
            if self._lazy is not None and most > self._lazy[h]:
                most = self._lazy[h] + 1  # r's own blocks past it are not cached: a sure miss there
            keys = []
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
            self._plan_memo = (h, total, cache.epoch, keys, hit, idle)
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
            self._plan_memo = None  # its keys become h's held list
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

    def _steps_before_watched_eviction(self, k: int) -> int:
        """Lockstep decode steps (at most k) before one would evict a block held for a
        running tool wait (the group's block needs over k steps)."""
        needs = self._crossings(k)
        safe = self.cache.blocks_before_watched(self.free, self.now, needs)
        if safe >= needs:
            return k
        # The (safe+1)-th block need comes at step q·bs + (sorted offsets)[idx] + 1.
        q, idx = divmod(safe, self._ng)
        return q * self._bs + self._kth_offset(idx)

    def _register(self, rows) -> None:
        """Cache the blocks these requests just filled (prompt or generated tokens)."""
        bs = self.cfg.block_size
        cache, identity, computed_of, held, lazy = self.cache, self.identity, self._computed_of, self.held, self._lazy
        for r in rows:
            h = held[r]
            full = computed_of(r) // bs
            if lazy is not None and full > lazy[r]:
                full = lazy[r]
            if full > len(h):
                h.extend(cache.register(identity.keys(r, len(h), full, bs)))

    def _release(self, r: int, finished: bool) -> None:
        """Give r's blocks back. A finished turn followed by a tool wait keeps its KV cached
        (counted in byte·s until the wait ends or it is evicted) or drops it."""
        self._register((r,))
        held = self.held[r]
        lazy = 0  # r's own full blocks not cached one by one
        if self._lazy is not None and self._lazy[r] < _NEVER:
            full = self._computed_of(r) // self._bs
            lazy = max(full - len(held), 0)
            if not finished:  # r may hit them when it comes back: cache them now
                if lazy:
                    held.extend(self.cache.register(self.identity.keys(r, len(held), full, self._bs)))
                    lazy = 0
                self._lazy[r] = _NEVER
        plain = self.blocks[r] - len(held) - lazy
        drop, watch_until = False, None
        if finished and self._tool is not None and self._tool[r] > 0:
            if self._keep[r]:
                watch_until = self.now + float(self._tool[r])
            else:
                drop = True
        unreachable = getattr(self.identity, "unreachable_from", None) if finished else None
        if unreachable is not None and self._tool is None:
            # Without tool waits (no watched blocks) also the codes every other holder of
            # has finished: nobody can ask for those blocks again either.
            unreachable = self.identity.finished_unreachable_from
        self.free += self.cache.release(held, plain, drop, watch_until, self.now,
                                        unreachable(r, self._bs) if unreachable is not None else None, lazy)
        self.held[r] = []
        if finished:
            self.identity.forget(r)

    def _prefix_extras(self) -> dict:
        if not self._prefix_info:
            return {}
        if self.cache is not None:  # blocks allocated in the last step leave the queue
            self.cache.settle(self.free, self.now)
        prompt = float(self.P.sum())
        cached = np.array(self.cached, np.int64)
        extras = {"cache_hit_rate": float(cached.sum()) / prompt if prompt else 0.0,
                  "evicted_blocks": self.cache.evicted if self.cache is not None else 0}
        if self._turn is not None:
            extras["hit_rate_by_turn"] = hit_rate_by_turn(self._turn, cached, self.P)
            extras["tool_wait_kv_byte_s"] = self.cache.tool_wait_kv_byte_s if self.cache is not None else 0.0
        return extras
