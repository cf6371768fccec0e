#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""ivshmem-peer: the host-side "FPGA" behind the guest's ivshmem-plain BAR.

The guest maps the BAR through uiomem and talks to this process through a
mailbox in the first 256 bytes of the shared file (little-endian):

  0x00 u32 magic     guest: MAGIC once it starts talking
  0x04 u32 version   guest: VERSION (an unlikely value, so that other
                     programs writing "UIOM..." text there are ignored)
  0x08 u32 req_seq   guest: incremented after a request is complete
  0x0c u32 ack_seq   host: set to req_seq once the request is done
  0x10 u32 cmd       guest: FILL, CHECK or BYE
  0x14 u32 seed      guest: pattern seed
  0x18 u64 offset    guest: range start in the shared memory
  0x20 u64 length    guest: range length
  0x28 u32 status    host: 0 done/match, 1 mismatch, 2 bad request
  0x2c u32 pad
  0x30 u64 detail    host: first mismatching offset (CHECK)
  0x40 char[48] name guest: test name, NUL-terminated

FILL writes the pattern into the range (the guest reads it after
sync_for_cpu); CHECK compares the range with the pattern (the guest wrote it
and did sync_for_device) and prints a TAP line; BYE ends the session.  The
pattern byte at offset o is block[o % 4093] with
block[k] = (7k + 13 seed + k / 16) mod 256, as in tests/guest/uiomem.

Prints nothing and exits 0 if the guest never writes the magic.
"""

import argparse
import mmap
import os
import signal
import struct
import sys
import time

MAGIC = 0x4D4F4955  # "UIOM"
VERSION = 0x1F2E3D01
CMD_FILL, CMD_CHECK, CMD_BYE = 1, 2, 3
PERIOD = 4093
HEADER_SIZE = 0x1000


def block(seed: int) -> bytes:
    return bytes((7 * k + 13 * seed + (k >> 4)) & 0xFF for k in range(PERIOD))


def pattern(seed: int, offset: int, length: int) -> bytes:
    b = block(seed)
    start = offset % PERIOD
    reps = (start + length) // PERIOD + 1
    return (b * reps)[start : start + length]


class Peer:
    def __init__(self, path: str, size: int):
        self.fd = os.open(path, os.O_RDWR)
        self.mem = mmap.mmap(self.fd, size)
        self.size = size
        self.failures = 0
        self.stop = False

    def u32(self, off: int) -> int:
        return struct.unpack_from("<I", self.mem, off)[0]

    def u64(self, off: int) -> int:
        return struct.unpack_from("<Q", self.mem, off)[0]

    def tap(self, ok: bool, name: str, why: str = "") -> None:
        line = f"{'ok' if ok else 'not ok'} - ivshmem-peer/{name}"
        if why:
            line += f" # {why}"
        print(line, flush=True)
        if not ok:
            self.failures += 1

    def serve(self, req: int) -> None:
        cmd, seed = self.u32(0x10), self.u32(0x14)
        offset, length = self.u64(0x18), self.u64(0x20)
        raw = bytes(self.mem[0x40:0x70])
        name = raw.split(b"\0", 1)[0].decode("ascii", "replace") or "unnamed"
        status, detail = 0, 0
        in_range = HEADER_SIZE <= offset and length <= self.size - offset
        if cmd == CMD_BYE:
            self.stop = True
        elif cmd not in (CMD_FILL, CMD_CHECK) or not in_range:
            status = 2
            self.tap(
                False,
                name,
                f"bad request cmd {cmd} offset {offset:#x} length {length:#x}",
            )
        elif cmd == CMD_FILL:
            self.mem[offset : offset + length] = pattern(seed, offset, length)
            self.tap(True, f"fill-{name}")
        else:
            want = pattern(seed, offset, length)
            got = bytes(self.mem[offset : offset + length])
            if got == want:
                self.tap(True, f"check-{name}")
            else:
                status = 1
                i = next(k for k in range(length) if got[k] != want[k])
                detail = offset + i
                self.tap(
                    False,
                    f"check-{name}",
                    f"first mismatch at {detail:#x}: got {got[i]:#04x} want {want[i]:#04x}",
                )
        struct.pack_into("<IIQ", self.mem, 0x28, status, 0, detail)
        struct.pack_into("<I", self.mem, 0x0C, req)

    def run(self) -> int:
        while not self.stop:
            if self.u32(0x00) == MAGIC and self.u32(0x04) == VERSION:
                req = self.u32(0x08)
                if req != self.u32(0x0C):
                    self.serve(req)
                    continue
            time.sleep(0.002)
        return 1 if self.failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shm", required=True, help="file backing the ivshmem BAR")
    ap.add_argument("--size", required=True, type=int, help="its size in bytes")
    args = ap.parse_args()
    peer = Peer(args.shm, args.size)

    def on_term(signum, frame):
        peer.stop = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    return peer.run()


if __name__ == "__main__":
    sys.exit(main())
