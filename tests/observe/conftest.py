import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # endpoints.py next to the tests, as tests/audio does
