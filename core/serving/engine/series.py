"""The series the loop records (layout.py's SER rows): one entry per event, what the
queues, the batch and the pool hold after it."""
from __future__ import annotations

from core.serving.engine.jit import kernel
from core.serving.engine.layout import (
    FREE,
    N_RUN,
    NB,
    NOW,
    S_DEC,
    S_KV,
    S_RUNNING,
    S_STEPS,
    S_TOKENS,
    S_WAITING,
    SER_LEN,
    WQ_LEN,
)


@kernel
def record(S, SF, ser_t, ser, tokens, steps, decode_rows):
    j = S[SER_LEN]
    ser_t[j] = SF[NOW]
    ser[S_WAITING, j] = S[WQ_LEN]
    ser[S_RUNNING, j] = S[N_RUN]
    ser[S_KV, j] = S[NB] - S[FREE]
    ser[S_TOKENS, j] = tokens
    ser[S_STEPS, j] = steps
    ser[S_DEC, j] = decode_rows
    S[SER_LEN] = j + 1
