"""The UI's look as data that sessions, talks and the window share: the zoom's range.
Pure Python (widgets/kit/zoom.py applies the zoom)."""
MIN_ZOOM = 0.5
MAX_ZOOM = 3.0
