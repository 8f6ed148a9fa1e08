"""§3.1.1-3.1.2, the Request & Metrics panel: one request's anatomy and 练习 3-1's split
(calculator), what counts as done (metrics: TTFT, T_request, T_token, p95), the state held
while waiting (occupancy, 图 3-3), cost per success (cost), the panel's state model (state)
and what it draws (figures)."""
