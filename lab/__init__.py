"""The application: main window, navigation, settings, and the `lab` command line."""

__version__ = "0.2.0"
