"""AIPerf's custom-dataset layouts that carry text, not lengths (docs: tutorials/
custom-dataset-guide), recognised so they are refused saying what is missing rather than
read as our own JSONL with an unknown column:

    single_turn  {"text": "What is ML?", "output_length": 50, "timestamp": 0}
    multi_turn   {"session_id": "c1", "turns": [{"text": "Hi"}, {"text": "More", "delay": 1000}]}
    random_pool  {"text": "What is ML?", "image": "a.png"}   (single_turn's fields, no timing)
    mooncake_trace with text_input, messages or payload in place of input_length

A simulation needs each request's prompt length in tokens, and there is no tokenizer here
(a model's tokenizer would be needed, and its count would differ from the server's); the
lengths-carrying layouts (mooncake_trace with input_length, bailian_trace, baseten_trace)
are read (jsonlines.py, mooncake_sessions.py, bailian.py, baseten.py).
"""
from __future__ import annotations

from core.serving.traces.guard import fail
from core.serving.traces.tabular import FIELDS

# single_turn's (and random_pool's) content fields: any of them makes a row of that layout.
CONTENT = ("text", "texts", "image", "images", "audio", "audios", "video", "videos")
MOONCAKE_TEXT = ("text_input", "messages", "payload")  # mooncake_trace's other input modes
_LENGTHS = set(FIELDS["input_tokens"])
_READ = ("valid: input_length (prompt tokens) and output_length per row, as AIPerf's mooncake_trace form "
         '{"timestamp": ms, "input_length": n, "output_length": n} (session_id and delay for turns)')


def layout(obj) -> tuple[str, str] | None:
    """(AIPerf's layout name, the text field it gives) of a row that has text in place of
    input_length, else None."""
    if not isinstance(obj, dict) or "input_length" in obj or any(str(k).strip().lower() in _LENGTHS for k in obj):
        return None  # lengths are given (our JSONL may carry images too)
    if isinstance(obj.get("turns"), list):
        turn = next((t for t in obj["turns"] if isinstance(t, dict)), {})
        part = next((k for k in CONTENT if k in turn), "turns")
        return "multi_turn", f"turns[].{part}"
    mode = next((k for k in MOONCAKE_TEXT if k in obj), None)
    if mode is not None:
        return "mooncake_trace", mode
    content = next((k for k in CONTENT if k in obj), None)
    if content is not None:
        timed = any(k in obj for k in ("timestamp", "delay", "session_id", "output_length"))
        return ("single_turn" if timed else "single_turn or random_pool"), content
    return None


def refuse(obj, row: int = 1) -> None:
    """Raise the refusal for a row of a text-only layout (nothing when it is not one)."""
    hit = layout(obj)
    if hit is None:
        return
    name, field = hit
    raise fail(f"line {row}: AIPerf's {name} layout gives the prompt as text ({field}), not as a length: no field "
               f"'input_length' (there is no tokenizer here to count the text); {_READ}")
