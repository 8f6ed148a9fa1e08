"""§3.1.3 serving: request mixes, the bandwidth bound of decode, the backlog of 例题 3-1 /
练习 3-2, and a continuous-batching replay with a KV pool and preemption."""
from core.serving import backlog, decode_rate, mix, replay

CALCULATORS = mix.CALCULATORS + decode_rate.CALCULATORS + backlog.CALCULATORS + replay.CALCULATORS
