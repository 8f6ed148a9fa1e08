import subprocess
import sys


def test_importing_core_loads_no_qt_pillow_or_sounddevice():
    code = ("import sys, core.registry, core.verify\n"
            "core.registry.registry(); core.verify.verify_all()\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('PySide6','pyqtgraph','PIL','sounddevice','widgets','lab','vision','audio')]\n"
            "print(','.join(sorted(bad)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_vision_and_audio_do_not_import_qt():
    code = ("import sys, pkgutil, importlib, vision, audio\n"
            "for pkg in (vision, audio):\n"
            "    for m in pkgutil.iter_modules(pkg.__path__):\n"
            "        importlib.import_module(pkg.__name__ + '.' + m.name)\n"
            "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6','pyqtgraph','widgets','lab'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
