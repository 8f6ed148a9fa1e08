"""§3.5 RL, for the Training panel: the cost of one cycle (例题 3-4) and extra generation with
a fixed update (练习 3-7) in cycle; the producer/consumer pipeline of 图 3-24 (synchronous vs
asynchronous) in pipeline; group-relative advantages and how a loss is averaged over
micro-batches in loss; what the panel draws of them in figures. (`lab simulate rl`, the loop
through the serving engine, is core/rl.)

Counting conventions (shared/data/README.md): generation = prefill of P rows with logits
on the last row + G-1 decode steps; the reference forward = teacher forcing over P+G-1
rows with logits on every row; the update = kept samples x 3 x that forward.
"""
