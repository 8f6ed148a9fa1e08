"""§3.6, the Scaling & Budgets panel: the scaling-law fit, compute-optimal allocation,
training against serving and the small budget cards (calculator), the panel's state model
(state) and what it draws (figures)."""
