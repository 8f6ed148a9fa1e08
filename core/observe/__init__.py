"""`lab observe`: a load generator for any OpenAI-compatible endpoint (issue 13).

schedule.py  the requests and their send times (a trace, or vllm bench's synthetic keys
             drawn by the simulator's own code)
prompts.py   prompt text of an exact token count (shared prefixes kept identical)
client.py    the asyncio + aiohttp client: on-schedule sends, streamed timing, errors
server.py    the server's URL, models, version and /metrics text
prom.py      the Prometheus counters and gauges kept, before/after deltas
result.py    result.json (vllm bench serve's keys + "lab_observe") and requests.csv
runner.py    one run end to end
"""
