"""Prefill/decode disaggregation (xPyD) through the engine: a prefill pool and a decode
pool of Engines, a KV transfer over a link between them (issue 15).

  links.py    kv_link= (the cards' NVLink/PCIe, ConnectX-7 NICs, GB/s) and the transfer time
  keys.py     the P/D keys of `lab simulate serving` (pools=2P4D, prefill_*/decode_* ...)
  sides.py    each pool resolved as a plain run of its keys (issue 12's deployments)
  routers.py  the decode pool's routers (the four, plus least_kv_demand)
  pool.py     N engines behind a router, keeping a workload's remote KV
  run.py      replay_disagg: prefill pool -> transfer -> decode pool
  merge.py    the run's one ReplayResult
  report.py   the report `lab simulate serving` prints for a P/D run (text.py: its lines)
  capacity.py the cheapest xPyD that meets an SLO (pools=cheapest)
  entry.py    what core/serving/headless.py calls for any P/D key
Not modelled: sessions (a turn waits for its predecessor's decode finish, on the other
pool). The prefill instance holds a request's blocks until its KV has landed (run.py).
Image requests through the pools: core/serving/multimodal/pd.py (it imports this package,
never the other way).
No Qt here.
"""
