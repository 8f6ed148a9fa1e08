"""The semantic palette and the style sheet: one meaning per colour in every theme, tags
readable (WCAG contrast), sizes that scale, every colour key a panel asks for defined."""
import re
from pathlib import Path

import pytest
from PySide6 import QtGui

from widgets.kit import theme
from widgets.kit.zoom import zoom_notifier

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _light_theme():
    yield
    theme.set_theme("light")


def _luminance(hex_colour: str) -> float:
    """WCAG 2.1 relative luminance."""
    c = QtGui.QColor(hex_colour)

    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue())


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula_matches_wcag_reference_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_tags_and_text_meet_contrast_in_every_theme(name):
    c = theme.THEMES[name]
    assert contrast(c["tag_ink"], c["tag"]) >= 4.5  # the 示意 tags
    for text in ("ink", "muted", "ref", "error"):
        for ground in ("card", "page", "paper"):
            assert contrast(c[text], c[ground]) >= 4.5, (name, text, ground)
    assert contrast(c["nav_ink"], c["nav"]) >= 4.5


def test_every_theme_names_the_same_colours_and_every_meaning():
    keys = set(theme.THEMES["light"])
    assert set(theme.MEANINGS) <= keys
    for palette in theme.THEMES.values():
        assert set(palette) == keys


@pytest.mark.parametrize("name", list(theme.THEMES))
def test_one_colour_one_meaning(name):
    """Distinct meanings never share a colour (a family's keys share their meaning's; ink,
    the cursor and the capacity line are all the text colour)."""
    neutral = {"cursor", "capacity"}
    palette = theme.THEMES[name]
    seen = {}
    for key in theme.MEANINGS:
        if key in theme.FAMILY or key in neutral:
            continue
        colour = palette[key].lower()
        assert colour not in seen, f"{name}: {key} and {seen.get(colour)} are both {colour}"
        seen[colour] = key
    for key, of in theme.FAMILY.items():
        assert palette[key] == palette[of]


def test_colours_shared_in_one_theme_are_shared_in_all():
    """Re-colouring a drawn plot maps each colour to the same meaning's in the new theme:
    only possible if no colour stands for two meanings that part ways in another theme."""
    from widgets.kit.plot_zoom import PLOT_KEYS

    for name, palette in theme.THEMES.items():
        by_colour = {}
        for key in PLOT_KEYS:
            by_colour.setdefault(palette[key].lower(), set()).add(key)
        for keys in by_colour.values():
            for other in theme.THEMES.values():
                assert len({other[k].lower() for k in keys}) == 1, (name, keys)


def test_teal_means_the_encoder_cache_only():
    """Vision's EC and Training's activations were both teal."""
    for palette in theme.THEMES.values():
        assert palette["ec"] != palette["activations"]
    step = (ROOT / "widgets/training/step.py").read_text()
    assert 'brush("activations"' in step and '"accent"' not in step


def test_every_colour_a_panel_asks_for_is_in_the_palette():
    used = set()
    pattern = re.compile(r'''(?:pen|brush|color|span|COLORS\.get|plot_text\(.*?kind=)\(?["']([a-z_0-9]+)["']''')
    for path in (ROOT / "widgets").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(pattern.findall(text))
        used |= set(re.findall(r'''COLORS\[["']([a-z_0-9]+)["']\]''', text))
    used -= {"x", "y"}  # keyword arguments caught by the pattern, not colours
    assert used, "the scan found no colour keys at all"
    missing = sorted(k for k in used if k not in theme.THEMES["light"] and not QtGui.QColor.isValidColorName(k))
    assert not missing, f"colour keys not in the palette: {missing}"


def test_kinds_named_in_core_figures_are_palette_colours():
    """Figures in core name their colours by meaning; each name must be in the palette (an
    unknown name draws black)."""
    from core.vision import figures as vision_figures
    from widgets.training.flops import SEGMENT_KINDS
    from widgets.training.pipeline import ROLE_COLORS

    kinds = {kind for _key, _label, kind in vision_figures.VOLUME_KINDS}
    kinds |= set(vision_figures.QUESTION_KINDS.values()) | set(SEGMENT_KINDS.values()) | set(ROLE_COLORS.values())
    assert kinds <= set(theme.THEMES["light"]), kinds - set(theme.THEMES["light"])


def test_style_sheet_has_no_pixel_font_sizes_and_scales_with_zoom():
    sheet = theme.style_sheet(1.0, "light")
    assert "font-size" not in sheet  # fonts follow the zoom through apply_fonts, in points
    assert "border-radius: 6px" in sheet
    assert "border-radius: 12px" in theme.style_sheet(2.0, "light")
    dark = theme.style_sheet(1.0, "dark")
    assert theme.THEMES["dark"]["page"] in dark and theme.THEMES["light"]["page"] not in dark


def test_set_theme_switches_colours_and_says_so(qtbot):
    with qtbot.waitSignal(zoom_notifier().theme_changed) as blocker:
        theme.set_theme("dark")
    assert blocker.args == ["dark"]
    assert theme.current_theme() == "dark"
    assert theme.COLORS["paper"] == theme.THEMES["dark"]["paper"]
    assert theme.color("decode").name() == theme.THEMES["dark"]["decode"]
    with pytest.raises(ValueError, match="light, dark, high-contrast"):
        theme.set_theme("sepia")
    assert theme.current_theme() == "dark"
