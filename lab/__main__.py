import sys

from lab.cli import main

if __name__ == "__main__":  # helper processes (forkserver, spawn) may import this module again
    sys.exit(main())
