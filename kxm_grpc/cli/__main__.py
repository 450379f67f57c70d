"""``python -m kxm_grpc.cli``: the same as the ``kxm`` command."""

import sys

from kxm_grpc.cli import main

sys.exit(main())
