"""The application: main window, navigation, settings, and the `lab` command line."""
