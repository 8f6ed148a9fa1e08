"""The language of the lab's labels as text rules: 中文, English, or both (the "中文 ·
English" the panels are written in). widgets.kit.i18n is the API panels and the window use
(set_language, translate_tree and these rules); this module knows no widget.

Panels are built with their own strings; `translate_tree(widget)` (widgets/kit/i18n_tree.py)
then shows each visible string in the chosen language. A string is translated by:
  1. the Qt catalogs (QTranslator over widgets/translations/lab_{zh,en}.qm, built by
     scripts/update-translations.sh with pyside6-lupdate/lrelease): the exact string, then
     the string with its numbers as %1, %2 … (so "p95 = 1.23 s" and "p95 = 4.5 s" share
     one entry);
  2. otherwise a pair "中文 · English" or "预设 preset": the side of the chosen language
     (book references such as "图 3-2" become "Fig. 3-2" on the English side);
  3. otherwise the string as written (in English with the book's labels in English).
"both" shows every string exactly as the panel wrote it. Rich text keeps its markup.

Calculator parameters and outputs keep their identifiers (tooltips, CLI); their labels
read in the chosen language through the catalogs' "param" and "output" contexts.
"""
from __future__ import annotations

import os
import re

from PySide6 import QtCore

from core.registry import registry

LANGUAGES = ("zh", "en", "both")
CATALOG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "translations")
PAIR_SEPARATOR = " · "

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff01-\uff5e]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_SPACED_PAIR = re.compile(r"(.*[\u3400-\u9fff][^A-Za-z]*?)\s+([A-Za-z][^\u3000-\u303f\u3400-\u9fff\uff01-\uff5e]*)")
_REFERENCE = re.compile(r"(?:(?:§[\d.]+|(?:Fig\.|Example|Exercise|Table) [\d-]+)\s+)+(?=[\u3400-\u9fff])")
_LEADING_TERMS = re.compile(r"(?:[A-Za-z0-9_.+-]+\s+)+(?=[\u3400-\u9fff])")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# Names the Chinese text keeps as they are.
_PROPER_NAME = re.compile(r"Fish Audio|Scaling Law|Flash Attention|Little's law")
_FULL_WIDTH = str.maketrans({"\u3002": ".", "\uff0c": ", ", "\uff1a": ": ", "\uff1b": "; ",
                             "\uff08": " (", "\uff09": ")", "\u3001": ", "})
# A number as its own token: not the 3 in "Qwen3", nor the 2 in "3.1.2" after its dot.
_NUMBER = re.compile(r"(?<![A-Za-z_\d.%])\d[\d,]*(?:\.\d+)?(?:[eE][+-]?\d+)?")
_PLACEHOLDER = re.compile(r"%(\d+)")
_TAG = re.compile(r"(<[^<>]*>)")
_RICH = re.compile(r"<(?:/?[a-zA-Z][a-zA-Z0-9]*)(?:\s[^<>]*)?/?>")
# The book's own labels, as the English side names them.
_BOOK_REFS = ((re.compile(r"图\s*(\d+-\d)"), r"Fig. \1"), (re.compile(r"例题\s*(\d+-\d)"), r"Example \1"),
              (re.compile(r"练习\s*(\d+-\d)"), r"Exercise \1"), (re.compile(r"表\s*(\d+-\d)"), r"Table \1"),
              (re.compile(r"第\s*(\d+)\s*章"), r"chapter \1"), (re.compile(r"数值为示意|含示意值|示意"), "illustrative"))


# Words a Chinese label keeps in English, as the book writes them: its technical terms,
# model names and units.
ZH_TERMS = frozenset("""
prefill decode kv ttft tpot token tokens gpu gpus cpu npu hbm flops flop mfu fps cfg dit vae
latent latents moe rl grpo ppo sft dpo lora adam adamw bf fp int qwen llama deepseek chinchilla
vl gpt api cli json csv png svg pdf wav pcm id ok ec ms us ns kib mib gib tib kb mb gb tb pb
byte bytes hz khz db steps step s min px batch lr nats fp bf16 fp32 fp16 amdahl scaling law
p50 p95 p99 t_request t_token t_queue n_s n_keep p_label a100 h100 h800 b200 sm sms tflops
pflops rope attention flash mlp ffn sglang vllm portaudio sounddevice jitter agent agents patch
patches prompt prompts codec gantt fcfs rtx pro vs micro query queries key keys teacher forcing
blackwell datablations max min log exp config head
""".split())


class _Notifier(QtCore.QObject):
    language_changed = QtCore.Signal(str)


_state = {"language": "both", "catalogs": None, "notifier": None, "recorder": None, "cache": {}}
CACHE_SIZE = 20_000  # translated strings kept: a walk of an unchanged panel looks them up


def notifier() -> _Notifier:
    """The QObject whose language_changed(str) follows set_language."""
    if _state["notifier"] is None:
        _state["notifier"] = _Notifier()
    return _state["notifier"]


def language() -> str:
    return _state["language"]


def select_language(lang: str) -> bool:
    """Make lang ("zh", "en" or "both") the language strings translate to; whether it
    changed (widgets.kit.i18n.set_language then shows it on every window)."""
    if lang not in LANGUAGES:
        raise ValueError(f"language: got {lang!r}; valid: {', '.join(LANGUAGES)}")
    changed = lang != _state["language"]
    _state["language"] = lang
    return changed


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def has_latin_word(text: str) -> bool:
    return bool(_LATIN_WORD.search(text))


def _catalogs() -> dict:
    if _state["catalogs"] is None:
        catalogs = {}
        for lang in ("zh", "en"):
            translator = QtCore.QTranslator()
            translator.load(os.path.join(CATALOG_DIR, f"lab_{lang}.qm"))  # missing: translates nothing
            catalogs[lang] = translator
        _state["catalogs"] = catalogs
    return _state["catalogs"]


def reload_catalogs() -> None:
    """Read the .qm files again (after scripts/update-translations.sh)."""
    _state["catalogs"] = None
    _state["cache"] = {}


def lookup(text: str, lang: str, context: str = "lab") -> str | None:
    """The catalog's lang translation of text, exact or with its numbers as %n; None if none."""
    catalog = _catalogs()[lang]
    context = "lab" if context == "tip" else context  # tooltips share the one catalog
    found = catalog.translate(context, text)
    if found:
        return found
    numbers = _NUMBER.findall(text)
    if not numbers:
        return None
    found = catalog.translate(context, template(text))
    if not found:
        return None
    return _PLACEHOLDER.sub(lambda m: numbers[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(numbers)
                            else m.group(0), found)


def template(text: str) -> str:
    """text with each number as %1, %2 …: the catalog entry for strings built with numbers."""
    counter = iter(range(1, 10_000))
    return _NUMBER.sub(lambda _: f"%{next(counter)}", text)


def book_refs_in_english(text: str) -> str:
    """The book's labels ("图 3-2" → "Fig. 3-2", 示意 → illustrative) and full-width
    punctuation in their English form."""
    for pattern, english in _BOOK_REFS:
        text = pattern.sub(english, text)
    return text.translate(_FULL_WIDTH) if not has_cjk(text.translate(_FULL_WIDTH)) else text


def split_pair(text: str) -> tuple[str, str] | None:
    """(中文, English) of a "中文 · English" string, else None. With several " · ", the split
    is where the Chinese ends; parts before it without Chinese of their own (a section, a
    figure number) go to both sides."""
    parts = text.split(PAIR_SEPARATOR)
    if (len(parts) == 2 and not has_cjk(parts[0]) and has_latin_word(parts[0]) and has_cjk(parts[1])
            and not english_words(parts[1])):
        return parts[1], parts[0]  # "Language · 语言"
    for k in range(len(parts) - 1, 0, -1):
        left, right = parts[:k], parts[k:]
        right_text = PAIR_SEPARATOR.join(right)
        if has_cjk(right_text) or not has_latin_word(right_text) or not has_cjk(left[-1]):
            continue
        shared = [book_refs_in_english(p) for p in left[:-1]]
        reference = _REFERENCE.match(book_refs_in_english(left[-1]))  # "§3.1 请求" keeps its §3.1
        right = [reference.group(0) + right[0]] + right[1:] if reference else right
        english = [p for p in shared if not has_cjk(p)] + right
        return PAIR_SEPARATOR.join(left), PAIR_SEPARATOR.join(english)
    return None


def split_spaced_pair(text: str) -> tuple[str, str] | None:
    """(中文, English) of "预设 preset", "打开图片 Open…": Chinese, a space, then English
    words (not only terms: "首响应 TTFT" is Chinese with a term, for the catalog)."""
    match = _SPACED_PAIR.fullmatch(text)
    if match is None or english_words(match.group(1)) or not english_words(match.group(2)):
        return None  # "…重算的 KV": a Chinese phrase ending in a term is not a pair
    chinese, english = match.group(1), match.group(2)
    lead = _LEADING_TERMS.match(chinese)  # "BF16 权重 weights": BF16 names both sides
    return chinese, (lead.group(0) if lead else "") + english


def translate_text(text: str, lang: str | None = None, context: str = "lab") -> str:
    """text as lang shows it (the current language by default); markup is kept and only the
    text between tags is translated; a <code> span is an identifier and stays."""
    lang = lang or language()
    if _state["recorder"] is not None:
        return _translate(text, lang, context)  # every string walked, none from the cache
    key = (text, lang, context)
    cache = _state["cache"]
    if key not in cache:
        if len(cache) > CACHE_SIZE:
            cache.clear()
        cache[key] = _translate(text, lang, context)
    return cache[key]


def _translate(text: str, lang: str, context: str) -> str:
    if lang == "both" or not text or not (has_cjk(text) or has_latin_word(text)):
        return text
    if _RICH.search(text):
        return _translate_rich(text, lang, context)
    if "\n" in text:
        return "\n".join(translate_text(line, lang, context) for line in text.split("\n"))
    stripped = text.strip()
    if stripped != text:
        start = text.index(stripped[:1]) if stripped else 0
        return text[:start] + translate_text(stripped, lang, context) + text[start + len(stripped):]
    found = lookup(text, lang, context)
    pair = split_pair(text) if found is None else None
    if pair is not None:
        return translate_text(pair[0] if lang == "zh" else pair[1], lang, context)
    spaced = split_spaced_pair(text) if found is None else None
    if spaced is not None:
        return spaced[0] if lang == "zh" else spaced[1]
    fallback = book_refs_in_english(text) if lang == "en" else text
    if _state["recorder"] is not None and needs_translation(fallback, lang) and not (lang == "zh" and context == "tip"):
        _state["recorder"].append((lang, "lab" if context == "tip" else context, template(text), found is not None))
    return fallback if found is None else found


def needs_translation(text: str, lang: str) -> bool:
    """text does not read in lang yet: Chinese in English, or English words (other than the
    book's technical terms and units, ZH_TERMS) in Chinese."""
    if lang == "en":
        return has_cjk(text)
    if lang == "zh":
        return bool(english_words(text))
    return False


def _allowed_english() -> frozenset:
    """ZH_TERMS and the words of every calculator unit ("steps", "tokens/s"): units stay
    as the book prints them."""
    if _state.get("allowed") is None:
        units = set()
        for calc in registry():
            for item in (*calc.params, *calc.outputs):
                units.update(w.lower() for w in _WORD.findall(item.unit))
        _state["allowed"] = ZH_TERMS | units
    return _state["allowed"]


_COUNT_UNIT = re.compile(r"(\d)\s+[a-z]+\b")


def english_words(text: str) -> list[str]:
    """The English words of text that a Chinese label should not keep: not identifiers or
    symbols (with a digit or '_': p95, n_s, Qwen3), not acronyms or names in camel case
    (TTFT, KV, MoE, DeepSeek), not ZH_TERMS."""
    words = []
    text = _COUNT_UNIT.sub(r"\1", text)  # "1 call": a count's unit, as the book prints it
    for word in _WORD.findall(_PROPER_NAME.sub(" ", text)):
        if (len(word) < 2 or any(c.isdigit() or c == "_" for c in word) or word.lower() in _allowed_english()
                or any(c.isupper() for c in word[1:])):
            continue
        words.append(word)
    return words


def record_catalog_use(recorder: list | None) -> None:
    """While recorder is a list, every string that needs a catalog entry is appended to it as
    (lang, context, source with numbers as %n, found): scripts/i18n_strings.py lists them."""
    _state["recorder"] = recorder


def _translate_rich(text: str, lang: str, context: str) -> str:
    out, in_code = [], False
    for piece in _TAG.split(text):
        if _TAG.fullmatch(piece):
            tag = piece.lower()
            in_code = tag.startswith("<code") or (in_code and not tag.startswith("</code"))
            out.append(piece)
        else:
            out.append(piece if in_code else translate_text(piece, lang, context))
    return "".join(out)


def tr(text: str, context: str = "lab") -> str:
    """text in the current language: for strings a panel sets after it is built."""
    return translate_text(text, language(), context)


def humanized(identifier: str) -> str:
    """A readable English label for a parameter or output identifier: words, not
    underscores ('arrival_rate_per_s' -> 'arrival rate per s')."""
    words = identifier.split("_")
    upper = {"kv", "gpu", "gpus", "ttft", "fps", "cfg", "dit", "rl", "vae", "moe", "mfu", "flops", "ec", "id", "cli"}
    return " ".join(w.upper() if w.lower() in upper else w for w in words)


def identifier_label(kind: str, identifier: str, lang: str | None = None) -> str | None:
    """The readable label of a parameter (kind "param") or output ("output") in lang;
    None in "both" (the identifier shows, as written)."""
    lang = lang or language()
    if lang == "both":
        return None
    found = _catalogs()[lang].translate(kind, identifier)
    if _state["recorder"] is not None and lang == "zh":
        _state["recorder"].append((lang, kind, identifier, bool(found)))
    return found or (humanized(identifier) if lang == "en" else None)
