"""Image requests through the serving engine (issue 15, its multimodal half).

images.py: a request's images and their figures, from core/vision/calculator.py (one
definition: visual tokens, encoder FLOPs, EC bytes); encoder.py: encoder seconds and the
encoder cache, decided in arrival order; lm.py: Qwen3-VL-4B's language model on a card and
image requests as the engine takes them (visual tokens in the prompt, Workload.encoder);
link.py: one FCFS link; epd.py: a separate encoder pool shipping EC to prefill;
handoff.py: the book's three handoffs (image, EC, KV) as deployments and a bandwidth sweep
(the Vision panel's "replay it"); stage.py: the images, encoder plan and EPD stage in
front of an engine; keys.py + report.py: `lab simulate serving` with images
(the keys' Params live in simulate_keys.py's image block; a trace's images column is read
by core/serving/traces/images.py); pd.py: images through prefill/decode pools (E -> P -> D).
"""
