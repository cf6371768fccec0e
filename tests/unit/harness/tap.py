# SPDX-License-Identifier: GPL-2.0 OR MIT
"""TAP result lines of one harness test file, and its exit status."""


class Tap:
    def __init__(self):
        self.failed = 0

    def check(self, name, ok, why):
        print(f"ok - harness/{name}" if ok else f"not ok - harness/{name} # {why}")
        self.failed += not ok

    def status(self):
        return 1 if self.failed else 0
