"""The lines `lab simulate serving` prints for a P/D run's pools, link, waits and cost
(in place of the one pool's replicas-and-cost lines). No Qt here."""
from __future__ import annotations


def _ms(value) -> str:
    if value is None:
        return "-"
    if abs(value) < 1:
        return f"{value * 1e3:,.0f} us"
    return f"{value:,.1f} ms" if abs(value) < 1e3 else f"{value / 1e3:,.2f} s"


def pd_lines(report: dict) -> list[str]:
    d = report["disaggregation"]
    link = d["kv_link"]
    search = report.get("pools_search")
    head = []
    if search:
        head = [f"  cheapest pools meeting the SLOs for {search['attainment']:.0%} of requests (up to {search['limits']}): "
                f"{search['found']}, after " + ", ".join(f"{t['pools']} {t['slo_attainment']:.0%}" for t in search["tried"])]
    bw = link["bandwidth_bytes_per_s"]
    lines = [f"  {d['pools']}: KV over {link['name']}"
             + (f" ({bw / 1e9:,.1f} GB/s per GPU, {link['latency_ms'] * 1e3:,.1f} us)" if bw else " (no transfer time)")
             + f", sent {d['kv_transfer']}"]
    lines = head + lines
    for side in ("prefill", "decode"):
        p = d[side]
        lines.append(f"    {side}: {p['instances']} x {p['cards_per_instance']} card behind {p['router']}, "
                     f"{p['requests']:,} requests, {p['engine_steps']:,} steps, {p['preemptions']} preemptions, "
                     f"KV peak {p['kv_peak_fraction'] * 100:.0f}%")
    t = d["transfer"]
    lines.append(f"    transfer: {t['requests']:,} requests, {t['bytes_total'] / 1e9:,.3f} GB "
                 f"({t['kv_bytes_per_token']:,.0f} B a token, {t['kv_cache_dtype']}), p50 {_ms(t['ms']['p50'])}, "
                 f"p95 {_ms(t['ms']['p95'])}")
    lines.append("    waits p50 / p95: " + ", ".join(f"{name[:-3].replace('_', ' ')} {_ms(w['p50'])} / {_ms(w['p95'])}"
                                                  for name, w in d["waits"].items()))
    if d["cost_per_hour"] is None:
        lines.append(f"    {d['cards']} cards; cost: a pool's card has no price (prefill_price_per_card_hour=, "
                     "decode_price_per_card_hour=)")
    else:
        per_million = d["cost_per_million_output_tokens"]
        lines.append(f"    {d['cards']} cards: ${d['cost_per_hour']:.2f}/hour, "
                     + (f"${per_million:.4f} per million output tokens" if per_million is not None else "no output tokens"))
    return lines


def request_columns(result) -> dict[str, list]:
    """requests.csv's columns of the transfer phase, per request (empty for a run with no
    P/D extras): the instances, when the prefill was done, the decode instance's blocks
    allocated (the transfer's start), the KV landed, the decode started; bytes and
    seconds of the transfer. A blank cell: the request never reached the decode pool."""
    cols = (getattr(result, "extras", None) or {}).get("request_columns")
    if not cols:
        return {}

    def times(a):
        return ["" if x != x else f"{x:.6f}" for x in a.tolist()]

    return {"prefill_instance": cols["prefill_instance"].tolist(),
            "decode_instance": ["" if i < 0 else i for i in cols["decode_instance"].tolist()],
            "prefill_done_s": times(cols["prefill_done_s"]), "kv_alloc_s": times(result.kv_alloc_s),
            "kv_ready_s": times(result.kv_ready_s), "decode_start_s": times(cols["decode_start_s"]),
            "kv_transfer_s": times(cols["kv_transfer_s"]),
            "kv_transfer_bytes": [f"{x:.0f}" for x in cols["kv_transfer_bytes"].tolist()]}
