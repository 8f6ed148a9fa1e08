"""Where each piece of the engine's state lives: the rows of its per-request arrays and
the slots of its scalar arrays. The compiled loop (loop.py) and the Python side
(state.py, driver.py) both read these names; numba takes them as compile-time constants.

Per request (engine order: workload rows sorted by arrival), an int64 row each of `I`:
"""
from __future__ import annotations

# -- I: int64[NI, n] ---------------------------------------------------------------------
P = 0  # prompt tokens
G = 1  # output tokens to generate
COMPUTED = 2  # tokens whose KV is in the pool
OUT = 3  # output tokens produced so far
BLOCKS = 4  # KV blocks held
IS_DEC = 5  # 1: prompt (and any recompute) done, one token per step
NPREEMPT = 6  # times preempted
CACHED = 7  # prompt tokens found cached at the first schedule
PENDING = 8  # the preemption log's entry waiting for its reschedule time, -1: none
CANCELLED = 9  # 1: the client went away (cancel)
NEXT = 10  # the session's next turn, -1: none
DYNAMIC = 11  # 1: arrives after its predecessor finished (its arrival learned while running)
EAGER = 12  # 1: its generated blocks are cached as they fill (a fixed-arrival next turn)
KEEP = 13  # 1: KV kept cached during its tool wait
HELD = 14  # prefix caching: leading full blocks it holds (keys in the pool's lists)
# The lockstep group (group.py): a member's computed is CB + the clock S[D], its outputs OB + S[D].
CB = 15
OB = 16
JID = 17  # the member's join id, -1: not a member
RES = 18  # CB mod block size: the phase of its block boundaries
# Remote KV (P/D's decode side, workload.RemoteKV) and encoder work (workload.EncoderWork):
READY = 19  # prompt tokens whose KV arrives over a link (0: none)
XSTATE = 20  # where that KV is: X_NONE, X_NEEDS (not allocated), X_MOVING (transfer), X_LANDED (waiting)
ENC_TOK = 21  # encoder input tokens (the per-step encoder budget counts them)
DUE_LINK = 22  # the next due release after this one (its id + 1; 0: none), hold.py
NI = 23
# X_HELD: finished, its blocks held until F[HOLD] (a P/D prefill's KV until the decode side read it)
X_NONE, X_NEEDS, X_MOVING, X_LANDED, X_HELD = 0, 1, 2, 3, 4

# -- F: float64[NF, n] -------------------------------------------------------------------
ARRIVAL = 0  # NaN for a dynamic turn until its predecessor finishes
FIRST_SCHED = 1
FIRST_TOKEN = 2
FINISH = 3
TOOL = 4  # tool wait after this turn (s)
AFTER = 5  # the next turn's think time (s)
SEND = 6  # with a front end: when the client sent it (ARRIVAL is then when it reaches the engine)
KV_ALLOC = 7  # remote KV: its blocks allocated, the transfer starts (NaN: not yet / not remote)
KV_READY = 8  # remote KV landed; before the allocation it holds the transfer time (s)
ENC_S = 9  # encoder seconds its first step adds
HOLD = 10  # its finish keeps its blocks until then (NaN: no hold; inf: until the driver's release)
NF = 11

# -- S: int64 scalars ----------------------------------------------------------------------
FREE = 0  # free blocks (the engine's count; the pool settles lazily)
STEPS = 1
DEC_TOK = 2
PRE_TOK = 3
CLOSED = 4  # decode steps advanced in closed form
EVENTS = 5
PEAK = 6
DONE = 7
N_RUN = 8  # running[:N_RUN]
WQ_HEAD = 9  # the waiting ring: wq[(WQ_HEAD + i) % capacity], i < WQ_LEN
WQ_LEN = 10
HEAP_LEN = 11  # dynamic turns due, remote KV landings and held blocks' releases, a binary heap on (time, id)
FIX_I = 12  # next fixed arrival in `fixed`
FIX_N = 13  # fixed arrivals (0 once routed: they come from the feed)
FEED_HEAD = 14  # submitted, not yet arrived: feed[FEED_HEAD:FEED_TAIL]
FEED_TAIL = 15
ROUTED = 16  # 1: requests come from a router's feed
FEED_OPEN = 17  # 1: the router may still submit (its next decision is the horizon)
SER_LEN = 18  # series entries written
LOG_LEN = 19  # preemption log entries written
N = 20
BS = 21  # block size
NB = 22  # blocks in the pool
BUDGET = 23  # token budget of a step
MAX_SEQS = 24
RESERVE = 25  # 1: reserve_full_prompt
FAST = 26  # 1: closed-form decode runs and the grouped plan
CACHE = 27  # 1: prefix caching on
D = 28  # the group's decode clock: steps its members took together
NG = 29  # members: running[:NG]
SUMCB = 30  # Σ CB over the members
JOINS = 31
GROUPED = 32  # 1: the running decoders are the group (fast mode between planned-exact steps)
FIN_LEN = 33  # entries of the members' finish heap
EAGER_MEMBERS = 34  # members caching their generated blocks as they fill
# The client and the front end (client.py):
MAXC = 35  # the client's concurrency limit, 0: none (fixed arrivals are engine ids 0..n-1 then)
GRANTED = 36  # fixed arrivals given a slot of the limit so far (in order)
INFLIGHT = 37  # of those, not yet finished at the client
FE_ON = 38  # 1: requests pass the front end (sent -> FEQ -> waiting)
FEQ_HEAD = 39  # the front end's queue: feq[(FEQ_HEAD + i) % capacity], i < FEQ_LEN, by when their slice is done
FEQ_LEN = 40
XFER_N = 41  # remote requests in transfer (their landings are in the heap ht/hi)
ENC_ON = 42  # 1: the workload has encoder work
ENC_BUDGET = 43  # encoder input tokens per step, 0: unlimited
ENC_STEPS = 44  # steps that ran the encoder
HELD_N = 45  # finished requests whose blocks are held (X_HELD; their releases due are in the heap)
HOLD_ON = 46  # 1: some request may hold its blocks past its finish (F[HOLD] is read only then)
DUE_HEAD = 47  # held requests whose release came due, first and last (id + 1; 0: none)
DUE_TAIL = 48
WOKE = 49  # 1: the clock moved on to new work since the last step (one_off.py)
FE_ROUNDS = 50  # slices of a request's front-end work, served round robin (client.py)
NS = 51

# -- SF: float64 scalars -------------------------------------------------------------------
NOW = 0
EXACT_UNTIL = 1  # no closed-form run crosses it (advance(exact=True)); inf: none
TOOL_BLOCK_S = 2  # Σ blocks × seconds held cached during tool waits
FE_FREE = 3  # the front end is busy until then
FE_REQ = 4  # its CPU time per request, per prompt token, per output token (s)
FE_IN = 5
FE_OUT = 6
DELIVER = 7  # when the client sees the tokens of the last step or run (the front end's)
ENC_STEP = 8  # encoder seconds of the requests admitted in the step being planned
ENC_TOTAL = 9  # Σ encoder seconds added to steps
FE_LAT = 10  # the front end's latency per request that holds no CPU (s; client.py)
NSF = 11

# -- series rows (SER: int64[NSER, cap]; times in SER_T) ------------------------------------
S_WAITING, S_RUNNING, S_KV, S_TOKENS, S_STEPS, S_DEC = 0, 1, 2, 3, 4, 5
NSER = 6

# -- what the loop returns ------------------------------------------------------------------
ST_DONE = 0  # the horizon is reached or no work is left
ST_CHUNK = 1  # its share of events is used: Python checks cancel and yields, then calls again
ST_GROW = 2  # the series or the log is nearly full: Python grows them, then calls again

# -- what the loop is asked (run_events' op; control.py) --------------------------------------
OP_RUN = 0  # events to the horizon
OP_CANCEL = 1  # cancel request r: returns 1, or 0 if it had finished or was never submitted
OP_LOOK = 2  # full blocks of r's prompt the prefix cache holds now
OP_RELEASE = 3  # a held r's blocks go back at the horizon's time (returns 1; 0: r is not held until released)

# -- the block pool's int slots (pool.py; here so the driver reads them without numba) -------
POOL_HEAD, POOL_TAIL, POOL_STACK_N, POOL_QUEUED, POOL_EVICTED = range(5)
