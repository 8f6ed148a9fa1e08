"""The application: main window, navigation, settings, and the `lab` command line."""

__version__ = "0.1.0"
