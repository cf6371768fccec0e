# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmemqemu.apt.download without apt-get: what it asks apt-cache and apt-helper.

apt-cache and apt-helper are stood in for by a fake `run` that answers from
a small archive of two suites: the tests check the file names (apt-get
download's, so old caches stay valid), the checked hash, the fallback to
the next archive that lists a version, and that a 404 from every archive is
ArchiveMissing while any other failure is not.
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "qemu"))

from tap import Tap  # noqa: E402
from udmemqemu import apt  # noqa: E402

MIRROR = "http://deb.example/debian"
SECURITY = "http://deb.example/debian-security"
# (package, architecture, version, archives that list it, pool file, sha256)
ARCHIVE = [
    ("busybox-static", "arm64", "1:1.35.0-4", [MIRROR], "pool/main/b/bb_1.35.0-4_arm64.deb",
     "aa" * 32),
    ("linux-headers-6.1.0-9-common", "all", "6.1.1-1", [SECURITY, MIRROR],
     "pool/main/l/hc_6.1.1-1_all.deb", "bb" * 32),
    ("linux-kbuild-6.1", "amd64", "6.1.1-1", [SECURITY], "pool/main/l/kb_6.1.1-1_amd64.deb",
     "cc" * 32),
    ("linux-kbuild-6.1", "armhf", "6.1.1-1", [MIRROR], "pool/main/l/kb_6.1.1-1_armhf.deb",
     "dd" * 32),
]


class FakeApt:
    def __init__(self, served):
        self.served = served      # URL -> "ok" | "404" | "fail"
        self.fetched = []         # (url, path, hash)

    def __call__(self, cmd, **kw):
        if cmd[0] == "apt-cache":
            sub, args = next((a, cmd[cmd.index(a) + 1:]) for a in cmd if a in ("madison", "show"))
            out = []
            for pkg, arch, ver, archives, filename, sha in ARCHIVE:
                if sub == "madison" and any(a.partition(":")[0] == pkg for a in args):
                    shown = pkg if arch in ("amd64", "all") else f"{pkg}:{arch}"
                    out += [f" {shown} | {ver} | {url} suite/main {arch} Packages"
                            for url in archives]
                elif sub == "show" and any(a in (f"{pkg}:{arch}={ver}", f"{pkg}={ver}")
                                           for a in args):
                    out.append(f"Package: {pkg}\nArchitecture: {arch}\nVersion: {ver}\n"
                               f"Description: a\n two-line field\nFilename: {filename}\n"
                               f"SHA256: {sha}\n")
            return subprocess.CompletedProcess(cmd, 0, "\n".join(out), "")
        assert cmd[:2] == ["/usr/lib/apt/apt-helper", "download-file"], cmd
        url, path, sha = cmd[2:5]
        self.fetched.append((url, path, sha))
        what = self.served.get(url.rsplit("/pool/", 1)[0], "ok")
        if what == "ok":
            with open(path, "w") as f:
                f.write(url)
            return subprocess.CompletedProcess(cmd, 0, "", "")
        if what == "404":
            return subprocess.CompletedProcess(cmd, 100, "", f"E: Failed to fetch {url}  404  "
                                               "Not Found [IP: 192.0.2.1 80]\n")
        return subprocess.CompletedProcess(cmd, 100, "", f"E: Failed to fetch {url}  "
                                           "Connection timed out\n")


def main():
    tap = Tap()
    check = tap.check

    def attempt(fake, specs):
        apt.run = fake
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                return apt.download({}, specs), None
        except Exception as e:  # noqa: BLE001 - the test looks at its type
            return None, e

    with tempfile.TemporaryDirectory() as cache:
        apt.CACHE = cache
        debs = os.path.join(cache, "debs")
        fake = FakeApt({})
        paths, err = attempt(fake, ["busybox-static:arm64=1:1.35.0-4",
                                    "linux-headers-6.1.0-9-common=6.1.1-1",
                                    "linux-kbuild-6.1:armhf=6.1.1-1"])
        want = [os.path.join(debs, n) for n in ("busybox-static_1%3a1.35.0-4_arm64.deb",
                                                "linux-headers-6.1.0-9-common_6.1.1-1_all.deb",
                                                "linux-kbuild-6.1_6.1.1-1_armhf.deb")]
        check("apt-download-names-as-apt-get", err is None and paths == want and
              all(os.path.exists(p) for p in want), f"{paths} {err}")
        check("apt-download-checks-the-hash", [f[2] for f in fake.fetched] ==
              ["SHA256:" + "aa" * 32, "SHA256:" + "bb" * 32, "SHA256:" + "dd" * 32],
              f"{fake.fetched}")
        check("apt-download-picks-the-architecture",
              fake.fetched[2][0] == MIRROR + "/pool/main/l/kb_6.1.1-1_armhf.deb", f"{fake.fetched}")

        fake = FakeApt({})
        paths, err = attempt(fake, ["busybox-static:arm64=1:1.35.0-4"])
        check("apt-download-cached-not-fetched", paths == want[:1] and not fake.fetched,
              f"{paths} {fake.fetched}")

        os.unlink(want[1])
        fake = FakeApt({SECURITY: "404"})
        paths, err = attempt(fake, ["linux-headers-6.1.0-9-common=6.1.1-1"])
        check("apt-download-next-archive-after-404", err is None and paths == want[1:2] and
              [f[0].rsplit("/pool/", 1)[0] for f in fake.fetched] == [SECURITY, MIRROR] and
              open(want[1]).read().startswith(MIRROR), f"{paths} {err} {fake.fetched}")

        fake = FakeApt({SECURITY: "404"})
        paths, err = attempt(fake, ["linux-kbuild-6.1:amd64=6.1.1-1"])
        check("apt-download-404-everywhere-is-missing", isinstance(err, apt.ArchiveMissing),
              f"{paths} {err!r}")
        check("apt-download-leaves-no-part-file",
              not [n for n in os.listdir(debs) if n.endswith(".part")], f"{os.listdir(debs)}")

        fake = FakeApt({SECURITY: "fail"})
        paths, err = attempt(fake, ["linux-kbuild-6.1:amd64=6.1.1-1"])
        check("apt-download-other-failure-not-missing",
              isinstance(err, RuntimeError) and not isinstance(err, apt.ArchiveMissing),
              f"{paths} {err!r}")

        fake = FakeApt({})
        paths, err = attempt(fake, ["busybox-static:arm64=9.9"])
        check("apt-download-unknown-version-named", isinstance(err, RuntimeError) and
              "busybox-static:arm64=9.9" in str(err) and not fake.fetched, f"{err!r}")
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
