"""§3.6, the Scaling & Budgets panel: the scaling-law fit and compute-optimal allocation
(law), training against serving and the small budget cards (budgets), the panel's state
model (state) and what it draws (figures)."""
