"""Qt views: one panel per topic and the shared pieces every panel uses."""
