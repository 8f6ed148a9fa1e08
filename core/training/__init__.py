"""§3.4-3.5, the Training panel: the counting rules and dense shapes (model), a linear
layer's products, resident state, FLOPs beside 6ND, packing and one update (calculator),
one training step as a schedule (step, 图 3-20), RL's cycle, pipeline and loss with their
figures (the rl package), the panel's state model (core/training_state.py) and what it
draws (figures, on the shared plot primitives in bars)."""
