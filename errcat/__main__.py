import sys

from errcat.cli import main

sys.exit(main())
