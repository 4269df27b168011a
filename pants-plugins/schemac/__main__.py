import sys

from schemac.cli import main

sys.exit(main())
