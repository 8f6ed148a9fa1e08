"""§3.2, the Multi-turn & Agents panel: where an edit lands, the tool critical path, state
held while tools run and Amdahl's cap (calculator), the measured code-agent trajectories
(trajectory), 图 3-14's CED and goodput (ced), a trajectory replayed through the engine's
prefix cache (replay), the panel's state model (state) and what it draws (figures,
trace_figures)."""
