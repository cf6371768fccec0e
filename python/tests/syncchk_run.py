# SPDX-License-Identifier: GPL-2.0 OR MIT
"""syncchk_run.py LIBUDMEM SCRIPT [ARG...]: run SCRIPT with the sync checker strict.

For test_syncchk.py: every buffer SCRIPT makes through udmem (allocate(),
Buffer.create()) is made with mmap mode "on" (unless SCRIPT asks for a mode)
and the checker strict, with libudmem's SIGBUS handler installed (unless
LIBUDMEM is ""); before the buffer is deleted, its checker mode and counters
go to standard error as one "syncchk-run: {json}" line.
"""

import json
import runpy
import sys

import udmem
from udmem import buffer

lib, script = sys.argv[1:3]
create, delete = buffer.Buffer.create, buffer.Buffer.delete


def checked_create(name, size, *, mmap_mode=None, sync_check=None, **kw):
    create(name, size, mmap_mode=mmap_mode or "on", sync_check=sync_check or "strict", **kw)


def counted_delete(name):
    with udmem.Buffer.open(name) as buf:
        facts = {"name": name, "sync_check": buf.sync_check,
                 "ownership_violations": buf.ownership_violations,
                 "redundant_syncs": buf.redundant_syncs}
    print("syncchk-run: " + json.dumps(facts), file=sys.stderr, flush=True)
    delete(name)


buffer.Buffer.create = staticmethod(checked_create)
buffer.Buffer.delete = staticmethod(counted_delete)
if lib:
    udmem.install_sync_check_handler(lib)
sys.argv = sys.argv[2:]
runpy.run_path(script, run_name="__main__")
