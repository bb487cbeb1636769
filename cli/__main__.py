"""``python -m cardhall.cli``: the ``cardhall`` command line (:data:`cardhall.cli.main`)."""

from . import main

main()
