#!/usr/bin/python3
"""End-to-end tests of the storscope command: real runs on a temporary
directory, schema validation of every JSON produced, bad input, Ctrl-C.
The classes live in cli_*.py by concern; this file runs them.

usage: test_cli.py STORSCOPE_BINARY SCHEMA_JSON [CLASS ...]
"""
import sys
import unittest

import cli_base

if __name__ == "__main__":
    cli_base.configure(sys.argv)  # before the modules take BIN and SCHEMA

from cli_runs import *  # noqa: F401,F403,E402
from cli_workloads import *  # noqa: F401,F403,E402
from cli_noise import *  # noqa: F401,F403,E402
from cli_bad_input import *  # noqa: F401,F403,E402
from cli_raw_probe import *  # noqa: F401,F403,E402
from cli_log import *  # noqa: F401,F403,E402
from cli_report import *  # noqa: F401,F403,E402
from cli_faults import *  # noqa: F401,F403,E402
from cli_plan import *  # noqa: F401,F403,E402
from cli_fit import *  # noqa: F401,F403,E402
from cli_db import *  # noqa: F401,F403,E402

if __name__ == "__main__":
    unittest.main(verbosity=2)
