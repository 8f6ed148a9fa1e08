"""Strings the offscreen walk of scripts/i18n_strings.py cannot reach (text a panel writes
only in some states), written by hand with numbers as %1, %2 …; pyside6-lupdate reads this
file beside strings_{zh,en}.py for both catalogs. Never imported."""
from PySide6.QtCore import QT_TRANSLATE_NOOP

# Training: the step readout while a micro-batch's activations are alive.
QT_TRANSLATE_NOOP('lab', '· %1 layer activations alive (micro-batch %2/%3) ·')

# Verify: the table's column names (a model's header, not a widget).
QT_TRANSLATE_NOOP('lab', 'calculator')
QT_TRANSLATE_NOOP('lab', 'book ref')
QT_TRANSLATE_NOOP('lab', 'output')
QT_TRANSLATE_NOOP('lab', 'book prints')
QT_TRANSLATE_NOOP('lab', 'book value')
QT_TRANSLATE_NOOP('lab', 'computed')
QT_TRANSLATE_NOOP('lab', 'tolerance')
